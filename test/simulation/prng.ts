/** mulberry32: a tiny seeded PRNG, so a failing seed replays the same scenario. */
export interface Prng {
  (): number;
  int(min: number, maxInclusive: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  seed: number;
}

export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = (() => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }) as Prng;
  next.int = (min, max) => min + Math.floor(next() * (max - min + 1));
  next.pick = (items) => items[Math.floor(next() * items.length)]!;
  next.chance = (p) => next() < p;
  next.seed = seed;
  return next;
}
