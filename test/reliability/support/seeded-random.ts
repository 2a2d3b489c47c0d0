/** A small seeded PRNG (mulberry32) with the helpers the fuzz suites use; the same seed gives the same cases. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** [0, 1) */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** A derived generator, so that one part of a case does not shift the numbers of the rest. */
  fork(): SeededRandom {
    return new SeededRandom(Math.floor(this.next() * 4_294_967_296));
  }

  /** Characters drawn from `alphabet` (code points), `length` of them. */
  text(length: number, alphabet: readonly string[]): string {
    let out = '';
    for (let i = 0; i < length; i++) out += this.pick(alphabet);
    return out;
  }
}
