/**
 * Feed readers (calendar and guide worker threads) running at once, at the most: each has a heap of its
 * own up to its limit (512 MB for a calendar, 256 MB for a guide), so twenty windows refreshed at one
 * deploy must not start twenty. The others wait their turn, in order.
 */
export const MAX_READERS = 2;

let running = 0;
const waiting: Array<() => void> = [];

/** Why a reader did not run: the schedule that wanted it closed (a redeploy) before or while it ran. */
export const READ_STOPPED = 'The read was stopped: its schedule closed.';

/**
 * Waits for a reader's turn; resolves to the function that ends it (call it once, when the reader is done).
 * Rejects with READ_STOPPED where `signal` is aborted first, leaving its place in the queue to the next.
 */
export function readerSlot(signal?: AbortSignal): Promise<() => void> {
  if (signal?.aborted) return Promise.reject(new Error(READ_STOPPED));
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    running--;
    waiting.shift()?.();
  };
  if (running < MAX_READERS) {
    running++;
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const turn = () => {
      signal?.removeEventListener('abort', stopped);
      running++;
      resolve(release);
    };
    const stopped = () => {
      const at = waiting.indexOf(turn);
      if (at >= 0) waiting.splice(at, 1);
      reject(new Error(READ_STOPPED));
    };
    signal?.addEventListener('abort', stopped, { once: true });
    waiting.push(turn);
  });
}

/** Readers running and waiting now (for tests). */
export function readerSlots(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}
