// A small seeded generator so the seed and the "random-looking" identifiers of
// new disks are the same on every run and after every reset.

export type Random = () => number;

/** mulberry32: tiny, fast, good enough for fake identifiers. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A 14-character lower-case identifier, as OnApp gives its records. */
export function identifier(random: Random): string {
  let out = '';
  for (let i = 0; i < 14; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return out;
}

/** ISO 8601 with a numeric offset, seconds precision: 2026-03-14T09:26:53+00:00. */
export function isoTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
