/**
 * Sizes of the reliability suites: a short CI size by default, a long local
 * size with RELIABILITY_SIZE=long. RELIABILITY_SEED changes the fuzz seed
 * (every run with the same seed generates the same cases).
 */

export const LONG = process.env.RELIABILITY_SIZE === 'long';

export function sized(ci: number, long: number): number {
  return LONG ? long : ci;
}

export const SIZE_NAME = LONG ? 'long' : 'ci';

const seedText = process.env.RELIABILITY_SEED;
export const SEED = seedText !== undefined && /^\d+$/.test(seedText) ? Number(seedText) >>> 0 : 20_251_122;
