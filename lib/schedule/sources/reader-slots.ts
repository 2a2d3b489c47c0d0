/**
 * Feed readers (calendar and guide worker threads) running at once, at the most: each has a heap of its
 * own up to its limit (512 MB for a calendar, 256 MB for a guide), so twenty windows refreshed at one
 * deploy must not start twenty. The others wait their turn, in order.
 */
export const MAX_READERS = 2;

let running = 0;
const waiting: Array<() => void> = [];

/** Waits for a reader's turn; resolves to the function that ends it (call it once, when the reader is done). */
export function readerSlot(): Promise<() => void> {
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
  return new Promise((resolve) =>
    waiting.push(() => {
      running++;
      resolve(release);
    }),
  );
}

/** Readers running and waiting now (for tests). */
export function readerSlots(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}
