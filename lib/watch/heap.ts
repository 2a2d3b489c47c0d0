/** What an item of an IndexedHeap carries: its key, its tie-breaker, and where it sits. */
export interface HeapSlot {
  /** The ordering key (smallest first). */
  dueAt: number;
  /** Breaks ties of `dueAt`: the item placed earlier comes first. */
  seq: number;
  /** Index in the heap's array; -1 when not in the heap. */
  heapIndex: number;
}

/**
 * A binary min-heap whose items carry their own key and position, so that an
 * item is moved in place when its key changes and removed directly: no node
 * object per insertion and no stale copies left behind (a job follower
 * reschedules every job on every read).
 */
export class IndexedHeap<T extends HeapSlot> {
  private items: T[] = [];
  private seq = 0;

  get size(): number {
    return this.items.length;
  }

  /** Places `item` at `dueAt`: inserted, or moved when it is already in the heap. */
  set(item: T, dueAt: number): void {
    item.dueAt = dueAt;
    item.seq = this.seq++;
    if (item.heapIndex < 0) {
      item.heapIndex = this.items.length;
      this.items.push(item);
      this.up(item.heapIndex);
    } else if (!this.up(item.heapIndex)) {
      // a later key (or the same one with a later seq): it can only go down
      this.down(item.heapIndex);
    }
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  remove(item: T): void {
    const i = item.heapIndex;
    if (i >= 0 && this.items[i] === item) this.removeAt(i);
  }

  clear(): void {
    for (const item of this.items) item.heapIndex = -1;
    this.items = [];
  }

  private removeAt(i: number): void {
    const items = this.items;
    const item = items[i];
    const last = items.pop() as T;
    item.heapIndex = -1;
    if (i === items.length) return;
    this.place(last, i);
    if (!this.up(i)) this.down(i);
  }

  /** Moves the item at `i` up while it is less than its parent; true when it moved. */
  private up(i: number): boolean {
    const items = this.items;
    const item = items[i];
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent];
      if (!less(item, p)) break;
      this.place(p, i);
      i = parent;
    }
    this.place(item, i);
    return i !== start;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && less(items[r], items[l]) ? r : l;
      const child = items[c];
      if (!less(child, item)) break;
      this.place(child, i);
      i = c;
    }
    this.place(item, i);
  }

  private place(item: T, i: number): void {
    this.items[i] = item;
    item.heapIndex = i;
  }
}

function less(x: HeapSlot, y: HeapSlot): boolean {
  return x.dueAt < y.dueAt || (x.dueAt === y.dueAt && x.seq < y.seq);
}
