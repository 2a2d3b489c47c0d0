import { describe, expect, it } from 'vitest';
import { MediaSpacesError } from '../../lib/errors';
import { SubmitJobRequest } from '../../lib/schemas';
import { buildSubmitRequest } from '../../lib/submit-input';

/**
 * buildSubmitRequest skips the schema pass when it built every field itself.
 * Whatever it returns must still be what the schema accepts, and whatever the
 * schema refuses must still be refused, naming the field.
 */
function outcome(request: unknown, options: Parameters<typeof buildSubmitRequest>[1] = {}) {
  try {
    return { ok: true as const, value: buildSubmitRequest(request, options) };
  } catch (error) {
    expect(error).toBeInstanceOf(MediaSpacesError);
    return { ok: false as const, fields: Object.keys((error as MediaSpacesError).fieldErrors) };
  }
}

const UUID = 'aaaaaaaa-0000-4000-8000-000000000001';
const names = ['Priority', 'a b', '', 'ünïcode', '__proto__', 'x'.repeat(300)];
const values: unknown[] = ['5', 5, 2.5, true, null, undefined, '', 'text', { value: '7', typecode: 'Int32' }];
const identifiers: unknown[] = [undefined, UUID, 'not-a-uuid', 42];
const jobNames: unknown[] = [undefined, 'nightly', 'x'.repeat(256), 'x'.repeat(257), 12, ''];

describe('buildSubmitRequest without the schema pass', () => {
  it('returns only what the schema accepts, for every mix of names, values, identifiers and job names', () => {
    let accepted = 0;
    let refused = 0;
    for (const name of names) {
      for (const value of values) {
        for (const identifier of identifiers) {
          for (const job_name of jobNames) {
            const variable = { name, typecode: 'String', value, ...(identifier === undefined ? {} : { identifier }) };
            const r = outcome({ job_name, usage: { input: { variables: [variable] } } });
            if (r.ok) {
              accepted++;
              expect(SubmitJobRequest.parse(r.value)).toEqual(r.value);
              expect(JSON.parse(JSON.stringify(r.value))).toEqual(SubmitJobRequest.parse(r.value));
            } else {
              refused++;
              expect(r.fields.length).toBeGreaterThan(0);
            }
          }
        }
      }
    }
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });

  it('still refuses, naming the field, what only the schema checks', () => {
    const long = outcome({ job_name: 'x'.repeat(257), variables: { Priority: '5' } });
    expect(long).toEqual({ ok: false, fields: ['job_name'] });
    const notText = outcome({ job_name: 12, variables: { Priority: '5' } });
    expect(notText).toEqual({ ok: false, fields: ['job_name'] });
    const badId = outcome({
      usage: { input: { variables: [{ name: 'P', typecode: 'Byte', value: '5', identifier: 'x' }] } },
    });
    expect(badId.ok).toBe(false);
    expect(badId.ok === false && badId.fields.join()).toMatch(/variables/);
    const nameless = outcome({ variables: { '': '5' } });
    expect(nameless.ok).toBe(false);
  });

  it('sends the variables and the job name as built, in the description form', () => {
    const r = outcome({ job_name: 'nightly', variables: { Priority: 5, Ready: true } });
    expect(r).toEqual({
      ok: true,
      value: {
        job_name: 'nightly',
        usage: {
          input: {
            variables: [
              { name: 'Priority', typecode: 'Int32', value: '5' },
              { name: 'Ready', typecode: 'Boolean', value: 'true' },
            ],
          },
        },
      },
    });
  });

  it('still checks media nicknames, attachments and labels with the schema', () => {
    const data = outcome({ media_nicknames: { Source: { data: 'abcde' } } });
    expect(data).toEqual({ ok: false, fields: ['usage.input.media_nicknames.0.data'] });
    const attachment = outcome({ attachments: { Logo: { file: 5 } } });
    expect(attachment.ok).toBe(false);
    const label = outcome({ labels: [{ identifier: 'Rating', extra: true }] });
    expect(label.ok).toBe(false);
  });
});
