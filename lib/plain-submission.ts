import { isPlainObject as isRecord } from './guards';
import { NAME_MAX, TYPECODES, UUID_PATTERN } from './rules';
import type { SubmitJobRequest } from './schemas';

const TOP_KEYS = new Set(['job_name', 'usage']);
const USAGE_KEYS = new Set(['input']);
const INPUT_KEYS = new Set(['variables']);
const VARIABLE_KEYS = new Set(['identifier', 'name', 'typecode', 'default', 'value']);
const KNOWN_TYPECODES: ReadonlySet<string> = new Set(TYPECODES);

const onlyKeys = (o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean => {
  for (const k in o) if (!allowed.has(k)) return false;
  return true;
};

const optionalText = (v: unknown): boolean => v === undefined || typeof v === 'string';

/**
 * True when a submit-job body holds only a job name and variables, each field
 * of the type the schema asks for: the schema would pass it unchanged, so the
 * client (for the request it built) and the simulator (for the body it
 * received) skip the zod pass for it. That pass was a third of the node's own
 * CPU per submission, and a load test's usual submission now costs the
 * simulator no zod at all. Anything else (media, attachments, labels, an
 * unknown member, a wrong type, a null) still goes through the schema, which
 * also words the errors. Browser-safe: no zod.
 */
export function isPlainSubmission(body: unknown): body is SubmitJobRequest {
  if (!isRecord(body) || !onlyKeys(body, TOP_KEYS)) return false;
  const name = body.job_name;
  if (name !== undefined && (typeof name !== 'string' || name.length === 0 || name.length > NAME_MAX)) return false;
  const usage = body.usage;
  if (usage === undefined) return true;
  if (!isRecord(usage) || !onlyKeys(usage, USAGE_KEYS)) return false;
  const input = usage.input;
  if (input === undefined) return true;
  if (!isRecord(input) || !onlyKeys(input, INPUT_KEYS)) return false;
  const variables = input.variables;
  if (variables === undefined) return true;
  if (!Array.isArray(variables)) return false;
  for (const v of variables) {
    if (!isRecord(v) || !onlyKeys(v, VARIABLE_KEYS)) return false;
    if (typeof v.name !== 'string' || v.name.length === 0) return false;
    if (typeof v.typecode !== 'string' || !KNOWN_TYPECODES.has(v.typecode)) return false;
    if (v.identifier !== undefined && (typeof v.identifier !== 'string' || !UUID_PATTERN.test(v.identifier)))
      return false;
    if (!optionalText(v.default) || !optionalText(v.value)) return false;
  }
  return true;
}
