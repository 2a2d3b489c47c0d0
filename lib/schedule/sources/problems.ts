/** Problems listed whole at the most: a feed with a broken field in every entry is not a list of 300,000 sentences. */
export const MAX_PROBLEMS = 100;

/** The problems of one read of a feed: the first MAX_PROBLEMS kept, the rest counted. */
export class Problems {
  private readonly kept: string[] = [];
  private more = 0;

  push(sentence: string): void {
    if (this.kept.length < MAX_PROBLEMS) this.kept.push(sentence);
    else this.more++;
  }

  list(): string[] {
    return this.more === 0
      ? [...this.kept]
      : [...this.kept, `${this.more} more problem${this.more === 1 ? ' is' : 's are'} not listed.`];
  }
}
