import { judgeMemory, type MemorySample } from '../../bench/soak/memory';

// The soak's memory verdict must not flip on the same build: RSS that swings
// with each major GC while the heap after GC is flat is flat; a heap after GC
// that keeps rising is growth, whatever RSS happens to read at the end.

const run = (seconds: number, rss: (i: number) => number, heap: (i: number) => number): MemorySample[] =>
  Array.from({ length: seconds / 10 + 1 }, (_, i) => ({ at: i * 10, rssMb: rss(i), heapAfterGcMb: heap(i) }));

describe('the soak memory verdict', () => {
  test('RSS swinging 155 ↔ 233 MB with GC, ending on a high, is flat when the heap after GC is flat (the runs that said "grew 46 MB")', () => {
    const samples = run(
      360,
      (i) => (i % 3 === 2 ? 233 : i % 3 === 1 ? 190 : 155),
      (i) => 41 + (i % 2) * 0.8,
    );
    samples[samples.length - 1]!.rssMb = 233;
    const verdict = judgeMemory(samples, 360);
    expect(verdict).toMatchObject({ judged: true, flat: true, rssPlateauMb: 233 });
    expect(verdict.rssPeaksMb).toEqual([233, 233, 233, 233]);
  });

  test('a heap after GC that keeps rising is growth, though RSS reads the same at both ends', () => {
    const samples = run(
      360,
      (i) => (i % 2 ? 230 : 180),
      (i) => 40 + i * 1.5,
    );
    const verdict = judgeMemory(samples, 360);
    expect(verdict).toMatchObject({ judged: true, flat: false });
    expect(verdict.heapAfterGcMb.growth).toBeGreaterThan(10);
  });

  test('the quarters are of (nearly) equal length, so the plateau is not read from one sample', () => {
    const rss = [173, 180, 174, 180, 175, 176, 170, 172, 168, 171];
    const samples = rss.map((rssMb, i) => ({ at: 40 + i * 10, rssMb, heapAfterGcMb: 33 }));
    expect(judgeMemory(samples, 120).rssPeaksMb).toEqual([180, 180, 176, 171]);
  });

  test('the plateau is the peak RSS of the last quarter, after growth has stopped', () => {
    const samples = run(
      120,
      (i) => Math.min(230, 150 + i * 10),
      () => 42,
    );
    expect(judgeMemory(samples, 120)).toMatchObject({ flat: true, rssPlateauMb: 230 });
  });

  test('runs under a minute, or without heap samples, are reported but not judged', () => {
    expect(
      judgeMemory(
        run(
          30,
          () => 150,
          () => 40,
        ),
        30,
      ).judged,
    ).toBe(false);
    const noProbe = run(
      120,
      () => 150,
      () => 40,
    ).map(({ at, rssMb }) => ({ at, rssMb }));
    expect(judgeMemory(noProbe, 120).judged).toBe(false);
  });
});
