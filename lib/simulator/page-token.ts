/**
 * Continuation tokens for the workflow list. Opaque to clients (base64url of
 * a small JSON), but they carry the space and the status filter they were
 * issued for, so a token replayed against another space or filter is refused
 * instead of silently returning the wrong page.
 */

interface TokenBody {
  v: 1;
  s: string;
  f: string;
  o: number;
}

export function encodePageToken(spaceId: string, status: string, offset: number): string {
  const body: TokenBody = { v: 1, s: spaceId, f: status, o: offset };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** Returns the offset, or the reason the token cannot be used. */
export function decodePageToken(
  token: string,
  spaceId: string,
  status: string,
  total: number,
): { offset: number } | { error: string } {
  const invalid = { error: 'page_token is not a token issued by this service' };
  if (token.length > 512 || !/^[A-Za-z0-9_-]+$/.test(token)) return invalid;
  let body: Partial<TokenBody>;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return invalid;
  }
  if (!body || typeof body !== 'object' || body.v !== 1 || typeof body.s !== 'string' || typeof body.f !== 'string') {
    return invalid;
  }
  if (body.s !== spaceId) return { error: 'page_token was issued for another space' };
  if (body.f !== status) {
    return { error: 'page_token was issued for a different status filter; repeat the filter of the first page' };
  }
  if (typeof body.o !== 'number' || !Number.isInteger(body.o) || body.o < 0 || body.o > total) {
    return { error: 'page_token is out of range' };
  }
  return { offset: body.o };
}
