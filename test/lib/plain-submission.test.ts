import { describe, expect, it } from 'vitest';
import { isPlainSubmission } from '../../lib/plain-submission';
import { SubmitJobRequest } from '../../lib/schemas';
import { buildSubmitRequest } from '../../lib/submit-input';

/**
 * The simulator skips the schema for a body isPlainSubmission passes. So every
 * body it passes must be one the schema accepts and returns unchanged; every
 * body the schema refuses must be refused here too (and then reaches the
 * schema, which words the 422).
 */
const UUID = 'aaaaaaaa-0000-4000-8000-000000000001';
const jobNames: unknown[] = [undefined, 'nightly', '', 'x'.repeat(256), 'x'.repeat(257), 12, null];
const names: unknown[] = ['Priority', '', 'ünïcode', '__proto__', 7, null, undefined];
const typecodes: unknown[] = ['Byte', 'String', 'Timecode', 'byte', 'Float128', 3, undefined];
const texts: unknown[] = [undefined, '5', '', 5, null, { v: 1 }];
const identifiers: unknown[] = [undefined, UUID, UUID.toUpperCase(), 'not-a-uuid', 42];
const extras: Array<Record<string, unknown>> = [{}, { description: 'x' }, { ['__proto__']: 'x' }];

function* variables(): Generator<unknown> {
  for (const name of names)
    for (const typecode of typecodes)
      for (const value of texts)
        for (const identifier of identifiers) yield JSON.parse(JSON.stringify({ name, typecode, value, identifier }));
  for (const def of texts) yield { name: 'P', typecode: 'Byte', default: def };
  for (const extra of extras) yield JSON.parse(`{"name":"P","typecode":"Byte","value":"1"${extraText(extra)}}`);
  yield [];
  yield 'P';
  yield null;
}

const extraText = (extra: Record<string, unknown>) =>
  Object.entries(extra)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join('');

function* bodies(): Generator<unknown> {
  for (const v of variables())
    for (const job_name of jobNames) yield { job_name, usage: { input: { variables: [v] } } };
  for (const job_name of jobNames) yield { job_name };
  const plain = { name: 'P', typecode: 'Byte', value: '1' };
  yield {};
  yield { usage: {} };
  yield { usage: { input: {} } };
  yield { usage: { input: { variables: [] } } };
  yield { usage: { input: { variables: [plain, plain] } } };
  yield { usage: { input: { variables: plain } } };
  yield { usage: { input: { variables: [plain], labels: [] } } };
  yield { usage: { input: { media_nicknames: [{ identifier: 'm', files: ['/a.mxf'] }] } } };
  yield { usage: { input: null } };
  yield { usage: null };
  yield { usage: [] };
  yield { usage: { input: [] } };
  yield { usage: { input: { variables: [plain] }, extra: 1 } };
  yield { job_name: 'x', extra: 1 };
  yield JSON.parse('{"job_name":"x","__proto__":{"usage":1}}');
  yield JSON.parse('{"usage":{"__proto__":{}}}');
  yield [];
  yield null;
  yield 'text';
  yield 5;
}

describe('isPlainSubmission', () => {
  it('passes only bodies the schema accepts unchanged, and refuses every body the schema refuses', () => {
    let passed = 0;
    let refused = 0;
    let schemaOnly = 0;
    for (const raw of bodies()) {
      // what the simulator sees: the body after a JSON round trip
      const body = JSON.parse(JSON.stringify(raw) ?? 'null');
      const schema = SubmitJobRequest.safeParse(body);
      if (isPlainSubmission(body)) {
        passed++;
        expect(schema.success, JSON.stringify(body)).toBe(true);
        expect(schema.data).toEqual(body);
      } else if (schema.success) schemaOnly++;
      else refused++;
    }
    expect(passed).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1000);
    // media nicknames and the like are valid but left to the schema
    expect(schemaOnly).toBeGreaterThan(0);
  });

  it('passes the usual submission: a job name and variables in the full form', () => {
    const body = {
      job_name: 'capacity',
      usage: { input: { variables: [{ name: 'Priority', typecode: 'Byte', value: '5' }] } },
    };
    expect(isPlainSubmission(body)).toBe(true);
    expect(
      isPlainSubmission({ usage: { input: { variables: [{ name: 'P', typecode: 'String', default: 'x' }] } } }),
    ).toBe(true);
  });

  it('passes what the client builds from a job name and variables, and not what carries media', () => {
    const built = buildSubmitRequest({ job_name: 'nightly', variables: { Priority: { value: 5, typecode: 'Byte' } } });
    expect(built).toEqual({
      job_name: 'nightly',
      usage: { input: { variables: [{ name: 'Priority', typecode: 'Byte', value: '5' }] } },
    });
    expect(isPlainSubmission(built)).toBe(true);
    const withMedia = buildSubmitRequest({ media_nicknames: { programme: '/media/in.mxf' } });
    expect(isPlainSubmission(withMedia)).toBe(false);
  });
});
