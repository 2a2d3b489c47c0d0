import type { WorkflowStatus } from '../schemas';
import type { FixtureInputsDef, FixtureWorkflowDef } from './fixture-schema';
import { hashString, prng, uuidFrom } from './prng';

const ACTIONS = [
  'Transcode',
  'Conform',
  'Package',
  'Deliver',
  'Archive',
  'Restore',
  'Caption',
  'Thumbnail',
  'QC',
  'Transcribe',
  'Watermark',
  'Ingest',
  'Publish',
  'Loudness-correct',
  'Rewrap',
  'Clip',
];
const SUBJECTS = [
  'news package',
  'promo',
  'feature',
  'sports highlights',
  'episode',
  'trailer',
  'interview',
  'live clip',
  'archive reel',
  'social cut',
  'documentary',
  'ad spot',
];
// Mostly active, as in a real space, but every status well represented (the type asks for each one).
const STATUS_WEIGHTS: Record<WorkflowStatus, number> = { active: 0.45, idle: 0.2, archived: 0.2, deleted: 0.15 };
const STATUSES = Object.keys(STATUS_WEIGHTS) as WorkflowStatus[];
const BASE_DATE_MS = Date.parse('2023-01-01T08:00:00.000Z');
const DAY_MS = 86_400_000;

const noInputs = (): FixtureInputsDef => ({ variables: [], media_nicknames: [], attachments: [], labels: [] });

/**
 * Filler workflows for a space: deterministic for a given space id and seed,
 * spread across all four statuses, about half of them needing no inputs.
 */
export function generateWorkflows(
  spaceId: string,
  count: number,
  seed: number,
  jobDurationMs: number,
): FixtureWorkflowDef[] {
  const next = prng((hashString(spaceId.toLowerCase()) ^ seed) >>> 0);
  const width = Math.max(4, String(count).length);
  const out: FixtureWorkflowDef[] = [];
  for (let i = 0; i < count; i++) {
    const id = uuidFrom(next);
    const action = ACTIONS[Math.floor(next() * ACTIONS.length)];
    const subject = SUBJECTS[Math.floor(next() * SUBJECTS.length)];
    // The first four cover every status so even a tiny count is useful for filters.
    const status = i < STATUSES.length ? STATUSES[i] : pickStatus(next());
    const createdMs = BASE_DATE_MS + Math.floor(next() * 700) * DAY_MS + Math.floor(next() * DAY_MS);
    const updatedMs = createdMs + Math.floor(next() * 30 * DAY_MS);
    out.push({
      id,
      name: `${action} ${subject} ${String(i + 1).padStart(width, '0')}`,
      description: `Generated workflow ${i + 1} of ${count} (seed ${seed}).`,
      status,
      created_at: new Date(createdMs).toISOString(),
      updated_at: new Date(updatedMs).toISOString(),
      version: String(1 + Math.floor(next() * 5)),
      inputs: generatedInputs(next()),
      job_duration_ms: jobDurationMs,
      outcome: 'succeeded',
    });
  }
  return out;
}

function pickStatus(r: number): WorkflowStatus {
  let acc = 0;
  for (let i = 0; i < STATUSES.length; i++) {
    acc += STATUS_WEIGHTS[STATUSES[i]];
    if (r < acc) return STATUSES[i];
  }
  return STATUSES[STATUSES.length - 1];
}

function generatedInputs(r: number): FixtureInputsDef {
  const inputs = noInputs();
  if (r < 0.5) return inputs;
  if (r < 0.75) {
    // Declared but defaulted: still submittable without inputs.
    inputs.variables.push({ name: 'Priority', typecode: 'Byte', default: '5', description: 'Queue priority 0-255' });
    return inputs;
  }
  inputs.variables.push({ name: 'Destination', typecode: 'Uri', description: 'Where the result goes' });
  return inputs;
}
