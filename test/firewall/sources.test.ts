import fc from 'fast-check';
import { familyMax } from '../../src/firewall/address';
import { EVERY_SOURCE, intersect, isEmpty, NO_SOURCE, sameSources, singleSource, sourcesOf, subtract, union, type SourceSet } from '../../src/firewall/sources';

// Source sets against a plain membership model over a small range of addresses.

const SPAN = 48;
const interval = fc
  .tuple(fc.integer({ min: 0, max: SPAN - 1 }), fc.integer({ min: 0, max: SPAN - 1 }))
  .map(([a, b]) => [BigInt(Math.min(a, b)), BigInt(Math.max(a, b))] as const);
const intervals = fc.array(interval, { maxLength: 8 });

/** Built by adding interval after interval, as the walk does. */
const build = (list: ReadonlyArray<readonly [bigint, bigint]>): SourceSet => list.reduce<SourceSet>((set, i) => union(set, { 4: [i], 6: [] }), NO_SOURCE);
const members = (list: ReadonlyArray<readonly [bigint, bigint]>) =>
  new Set(Array.from({ length: SPAN }, (_, v) => BigInt(v)).filter((v) => list.some(([lo, hi]) => lo <= v && v <= hi)));
const membersOf = (s: SourceSet) => members(s[4]);
/** Sorted, disjoint, and not touching (touching intervals are merged). */
const wellFormed = (s: SourceSet) => s[4].every(([lo, hi], i) => lo <= hi && (i === 0 || s[4][i - 1]![1] + 1n < lo));

describe('source sets', () => {
  test('union, intersection and difference agree with plain sets, and stay sorted and merged', () => {
    fc.assert(
      fc.property(intervals, intervals, (xs, ys) => {
        const a = build(xs);
        const b = build(ys);
        const ma = members(xs);
        const mb = members(ys);
        expect(membersOf(a)).toEqual(ma);
        for (const [result, expected] of [
          [union(a, b), new Set([...ma, ...mb])],
          [intersect(a, b), new Set([...ma].filter((v) => mb.has(v)))],
          [subtract(a, b), new Set([...ma].filter((v) => !mb.has(v)))],
        ] as const) {
          expect(membersOf(result)).toEqual(expected);
          expect(wellFormed(result) || result[4].length === 0).toBe(true);
          expect(isEmpty(result)).toBe(expected.size === 0);
        }
        expect(sameSources(a, b)).toBe(ma.size === mb.size && [...ma].every((v) => mb.has(v)));
      }),
      { numRuns: 500 },
    );
  });

  test('an address form covers its own family only; an empty one covers both families whole', () => {
    expect(sourcesOf({ kind: 'interval', family: 4, first: 1n, last: 9n })).toEqual({ 4: [[1n, 9n]], 6: [] });
    expect(sourcesOf({ kind: 'interval', family: 6, first: 1n, last: 9n })).toEqual({ 4: [], 6: [[1n, 9n]] });
    expect(sourcesOf({ kind: 'all' })).toEqual({ 4: [[0n, familyMax(4)]], 6: [[0n, familyMax(6)]] });
    expect(EVERY_SOURCE).toEqual({ 4: [[0n, 2n ** 32n - 1n]], 6: [[0n, 2n ** 128n - 1n]] });
    expect(singleSource({ family: 4, value: 7n })).toEqual({ 4: [[7n, 7n]], 6: [] });
    expect(singleSource({ family: 6, value: 7n })).toEqual({ 4: [], 6: [[7n, 7n]] });
  });

  test('the two families never mix', () => {
    const v4 = sourcesOf({ kind: 'interval', family: 4, first: 0n, last: 100n });
    const v6 = sourcesOf({ kind: 'interval', family: 6, first: 0n, last: 100n });
    expect(isEmpty(intersect(v4, v6))).toBe(true);
    expect(subtract(v4, v6)).toEqual(v4);
    expect(union(v4, v6)).toEqual({ 4: [[0n, 100n]], 6: [[0n, 100n]] });
    expect(sameSources(v4, v6)).toBe(false);
    expect(isEmpty(v6)).toBe(false);
  });

  test('intervals that touch are merged, at zero too', () => {
    expect(union({ 4: [[1n, 5n]], 6: [] }, { 4: [[0n, 0n]], 6: [] })).toEqual({ 4: [[0n, 5n]], 6: [] });
    expect(union({ 4: [[0n, 5n]], 6: [] }, { 4: [[6n, 9n]], 6: [] })).toEqual({ 4: [[0n, 9n]], 6: [] });
    expect(union({ 4: [[3n, 5n]], 6: [] }, { 4: [[7n, 9n]], 6: [] })).toEqual({
      4: [
        [3n, 5n],
        [7n, 9n],
      ],
      6: [],
    });
  });
});
