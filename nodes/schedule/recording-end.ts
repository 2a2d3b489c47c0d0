import type { MediaSpacesClient } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { isPlainObject } from '../../lib/guards';
import { sleep } from '../../lib/retry';
import { retryUntilDeadline } from '../../lib/retry-until';

/** How often a stopped channel is read until its recording has finished. */
const FINISH_POLL_MS = 1_000;
/** How long a follow-up waits for a stopped recording to finish before it goes with what it has. */
const FINISH_WAIT_MS = 120_000;
/** How long past a window's end its stop is tried (the service down at the end, say). */
export const STOP_GRACE_MS = 5 * 60_000;
/** Wait before stopping again a channel that was not recording yet. */
const STOP_CONFLICT_WAIT_MS = 1_000;

interface RecordingEndOptions {
  client: MediaSpacesClient;
  channel: Record<string, unknown> & { id: string };
  /** the window's at_end: keep leaves the recording running */
  atEnd: 'stop' | 'keep';
  /** when to give up stopping (epoch ms) */
  stopDeadline: number;
  /** Idempotency-Key of the stop, derived from the slot so that a stop replayed after a restart is recognised */
  stopKey: string;
  finishWaitMs?: number;
  pollMs?: number;
  signal: AbortSignal;
  /** the stop was accepted: the recording is finishing; `refused` its attempts refused first ("stop refused 503 ×14") */
  stopped?(channel: unknown, refused?: string): void;
}

interface RecordingEnd {
  /** the channel as last read: final outputs when `finished` */
  channel: unknown;
  stopped: boolean;
  finished: boolean;
  /** one sentence when the follow-up goes without a finished recording */
  note?: string;
}

/**
 * The end of one window's recording: stopped (unless the window keeps it
 * running), then read until the service reports it finished (INACTIVE, its
 * outputs final), for at most FINISH_WAIT_MS. A failure says what the
 * follow-up goes with instead; only an abort (the node closing) rejects.
 */
export async function endRecording(o: RecordingEndOptions): Promise<RecordingEnd> {
  const { client, signal } = o;
  const id = o.channel.id;
  if (o.atEnd === 'keep') {
    const now = await read(client, id, signal);
    return {
      channel: now ?? o.channel,
      stopped: false,
      finished: false,
      note: 'at_end: keep: the recording runs on; the follow-up has its outputs as they are now',
    };
  }
  let last: unknown = o.channel;
  const refusals = new Map<string, number>();
  try {
    last = await stop(o, refusals);
    o.stopped?.(last, refusedSentence(refusals));
  } catch (error) {
    if (signal.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return {
      channel: (await read(client, id, signal)) ?? last,
      stopped: false,
      finished: false,
      note: `the recording could not be stopped (${reason}); it may still be recording`,
    };
  }
  const until = Date.now() + (o.finishWaitMs ?? FINISH_WAIT_MS);
  for (;;) {
    if (isFinished(client, last)) return { channel: last, stopped: true, finished: true };
    if (Date.now() >= until) break;
    await sleep(o.pollMs ?? FINISH_POLL_MS, signal);
    last = (await read(client, id, signal)) ?? last;
  }
  const state = isPlainObject(last) ? client.channelState(last) : undefined;
  return {
    channel: last,
    stopped: true,
    finished: false,
    note: `the recording had not finished ${Math.round((o.finishWaitMs ?? FINISH_WAIT_MS) / 1000)} s after the stop (state ${state ?? 'unknown'}); the follow-up has its outputs as they are now`,
  };
}

/**
 * The stop, tried until the deadline. A 409 says the recording has not
 * started yet (a window shorter than the channel's warm-up, a start that
 * succeeded just before the end): asked again a second later, under a new
 * key, since the service keeps the 409 as this key's answer.
 */
async function stop(o: RecordingEndOptions, refusals: Map<string, number>): Promise<unknown> {
  const refused = (error: unknown) => {
    const what = error instanceof MediaSpacesError ? String(error.status ?? error.code) : 'error';
    refusals.set(what, (refusals.get(what) ?? 0) + 1);
  };
  return retryUntilDeadline({
    deadline: o.stopDeadline,
    signal: o.signal,
    attempt: async (n) =>
      (
        await o.client.stopChannel(o.channel.id, {
          signal: o.signal,
          deadline: o.stopDeadline,
          idempotencyKey: n === 1 ? o.stopKey : `${o.stopKey}:${n}`,
          onRetry: (notice) => refused(notice.error),
        })
      ).data,
    decide: (error) => {
      refused(error);
      const notYet = error instanceof MediaSpacesError && error.status === 409;
      return notYet ? { retry: true, delayMs: STOP_CONFLICT_WAIT_MS } : { retry: false };
    },
  });
}

/** "stop refused 503 ×14", "stop refused 409 ×2, 503 ×3"; undefined when the first attempt was accepted. */
function refusedSentence(refusals: ReadonlyMap<string, number>): string | undefined {
  if (refusals.size === 0) return undefined;
  return `stop refused ${[...refusals].map(([what, n]) => `${what} ×${n}`).join(', ')}`;
}

/** INACTIVE after a recording: the service has written its outputs; ERROR: a failed recording has all it will have. */
function isFinished(client: MediaSpacesClient, channel: unknown): boolean {
  const state = isPlainObject(channel) ? client.channelState(channel) : undefined;
  return state === 'INACTIVE' || state === 'ERROR';
}

/** The channel now, or undefined when it cannot be read (the last reading stands). */
async function read(client: MediaSpacesClient, id: string, signal: AbortSignal): Promise<unknown> {
  try {
    return (await client.getChannel(id, { signal, retries: 0 })).data;
  } catch (error) {
    if (signal.aborted) throw error;
    return undefined;
  }
}
