/**
 * What a schedule shows people (its badge, the sidebar, the next-start gauge), done once the messages of
 * this turn are delivered and their requests written. 50 windows opening at one second each tick in
 * turn: a start must not wait for the bookkeeping of the starts before it.
 *
 * Two check phases later: Node-RED delivers messages by setImmediate, so the first check phase runs
 * the deliveries (create channel opens its connections there); the poll phase after it writes the
 * requests; the next check phase runs this.
 */
export class AfterSends {
  private queue: Array<() => void> = [];
  private readonly last = new Set<() => void>();
  private due = false;
  private closed = false;

  constructor(private readonly onError: (err: unknown) => void) {}

  /** Done in the order asked for. */
  add(work: () => void): void {
    if (this.closed) return;
    this.queue.push(work);
    this.arm();
  }

  /** Done now, after what was added before it: a slot's last report, which its follow-up message must not overtake. */
  now(work: () => void): void {
    if (this.queue.length > 0) this.flush();
    work();
  }

  /** Done once, after everything added (a badge drawn from all the slots' moves of the turn). */
  settle(work: () => void): void {
    if (this.closed) return;
    this.last.add(work);
    this.arm();
  }

  /** Done now what is queued (a slot's last report still reaches the sidebar); nothing after. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private arm(): void {
    if (this.due) return;
    this.due = true;
    setImmediate(() => setImmediate(() => this.flush()));
  }

  private flush(): void {
    this.due = false;
    const queue = this.queue;
    this.queue = [];
    const last = [...this.last];
    this.last.clear();
    for (const work of [...queue, ...last]) {
      try {
        work();
      } catch (err) {
        this.onError(err);
      }
    }
  }
}
