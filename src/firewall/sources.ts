import { familyMax, type AddressForm, type Family, type IpAddress } from './address';

// A set of source addresses: per family, sorted disjoint closed intervals.
// Walking the rules of an interface subtracts what each rule decides from
// what is still undecided, so "which sources are left" is always exact.

type Interval = readonly [bigint, bigint];

export interface SourceSet {
  readonly 4: readonly Interval[];
  readonly 6: readonly Interval[];
}

const FAMILIES: readonly Family[] = [4, 6];

export const EVERY_SOURCE: SourceSet = { 4: [[0n, familyMax(4)]], 6: [[0n, familyMax(6)]] };
export const NO_SOURCE: SourceSet = { 4: [], 6: [] };

export function singleSource(ip: IpAddress): SourceSet {
  return ip.family === 4 ? { 4: [[ip.value, ip.value]], 6: [] } : { 4: [], 6: [[ip.value, ip.value]] };
}

/** The sources a readable address form covers. */
export function sourcesOf(form: Exclude<AddressForm, { kind: 'unreadable' }>): SourceSet {
  if (form.kind === 'all') return EVERY_SOURCE;
  const interval: Interval = [form.first, form.last];
  return form.family === 4 ? { 4: [interval], 6: [] } : { 4: [], 6: [interval] };
}

export function isEmpty(s: SourceSet): boolean {
  return s[4].length === 0 && s[6].length === 0;
}

export function sameSources(a: SourceSet, b: SourceSet): boolean {
  return FAMILIES.every((f) => a[f].length === b[f].length && a[f].every(([x, y], i) => x === b[f][i]![0] && y === b[f][i]![1]));
}

export function intersect(a: SourceSet, b: SourceSet): SourceSet {
  return perFamily(a, b, (xs, ys) => {
    const out: Interval[] = [];
    for (const [x0, x1] of xs) {
      for (const [y0, y1] of ys) {
        const lo = x0 > y0 ? x0 : y0;
        const hi = x1 < y1 ? x1 : y1;
        if (lo <= hi) out.push([lo, hi]);
      }
    }
    return normalise(out);
  });
}

export function subtract(a: SourceSet, b: SourceSet): SourceSet {
  return perFamily(a, b, (xs, ys) => {
    let rest: Interval[] = [...xs];
    for (const [y0, y1] of ys) {
      const next: Interval[] = [];
      for (const [x0, x1] of rest) {
        if (y1 < x0 || y0 > x1) {
          next.push([x0, x1]);
          continue;
        }
        if (x0 < y0) next.push([x0, y0 - 1n]);
        if (y1 < x1) next.push([y1 + 1n, x1]);
      }
      rest = next;
    }
    return rest;
  });
}

export function union(a: SourceSet, b: SourceSet): SourceSet {
  return perFamily(a, b, (xs, ys) => normalise([...xs, ...ys]));
}

function perFamily(a: SourceSet, b: SourceSet, op: (xs: readonly Interval[], ys: readonly Interval[]) => Interval[]): SourceSet {
  return { 4: op(a[4], b[4]), 6: op(a[6], b[6]) };
}

/** Sorted, with overlapping and touching intervals merged. */
function normalise(intervals: Interval[]): Interval[] {
  const sorted = [...intervals].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const out: Array<[bigint, bigint]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1n) {
      if (hi > last[1]) last[1] = hi;
    } else {
      out.push([lo, hi]);
    }
  }
  return out;
}
