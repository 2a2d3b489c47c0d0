import { describe, expect, it } from 'vitest';
import { feedAccess, formatFeedSecrets, parseFeedSecrets } from '../../../../lib/schedule/sources/feed-access';

describe('parseFeedSecrets', () => {
  it('reads each window’s secret, keeping text fields only', () => {
    const text = JSON.stringify({
      newsroom: { location: 'https://cal.example/secret-9f.ics', user: 'ann', password: 'pw', extra: 1 },
      guide: { token: 't0k', location: 42 },
      junk: 'not a mapping',
    });
    expect(parseFeedSecrets(text)).toEqual({
      newsroom: { location: 'https://cal.example/secret-9f.ics', user: 'ann', password: 'pw' },
      guide: { token: 't0k' },
    });
  });

  it('reads a bad text as none and never throws', () => {
    for (const text of [undefined, '', '   ', '{', 'null', '[1,2]', '"x"', '{"__proto__": {"location": "x"}}']) {
      expect(() => parseFeedSecrets(text)).not.toThrow();
    }
    expect(parseFeedSecrets('{not json')).toEqual({});
    expect(Object.getPrototypeOf(parseFeedSecrets('{"__proto__": {"token": "x"}}'))).toBeNull();
  });

  it('formats back what it parses, windows without a secret left out', () => {
    const text = formatFeedSecrets({ a: { token: 't' }, b: {}, c: { user: 'u', password: '' } });
    expect(parseFeedSecrets(text)).toEqual({ a: { token: 't' }, c: { user: 'u' } });
    expect(formatFeedSecrets({ b: {} })).toBe('');
  });
});

describe('feedAccess', () => {
  const secrets = parseFeedSecrets(
    JSON.stringify({
      private: { location: 'https://cal.example/secret-9f.ics', user: 'ann', password: 'pw' },
      token: { token: 't0k', user: 'ignored' },
      nouser: { password: 'pw' },
    }),
  );

  it('takes a private address from the window’s secret, with its user and password', () => {
    expect(feedAccess({ id: 'private', location: 'private' }, secrets)).toEqual({
      location: 'https://cal.example/secret-9f.ics',
      credentials: { user: 'ann', password: 'pw' },
    });
  });

  it('keeps the document’s address, and prefers a token', () => {
    expect(feedAccess({ id: 'token', location: '/data/guide.xml' }, secrets)).toEqual({
      location: '/data/guide.xml',
      credentials: { token: 't0k' },
    });
    expect(feedAccess({ id: 'other', location: 'https://x.example/a.ics' }, secrets)).toEqual({
      location: 'https://x.example/a.ics',
    });
  });

  it('says in one sentence, naming the window and never an address, what is missing', () => {
    const missing = feedAccess({ id: 'other', location: 'private' }, secrets);
    expect(missing).toMatch(/^Window "other" reads a private feed address, but .*\.$/);
    const noUser = feedAccess({ id: 'nouser', location: 'https://x.example/a.ics' }, secrets);
    expect(noUser).toMatch(/^Window "nouser" has a feed password stored but no user/);
    expect(String(noUser)).not.toContain('x.example');
  });
});
