// The soak's memory verdict. RSS swings by tens of MB with each major GC
// (155 ↔ 233 MB on one run), so one RSS sample against another says nothing
// about growth: two runs of the same build disagreed. The verdict is judged on
// the heap in use right after a forced full GC, sampled throughout the run;
// RSS is reported as the peaks of successive windows, whose last is the plateau.

export interface MemorySample {
  /** Seconds since the load began. */
  at: number;
  /** RSS read from outside the process. */
  rssMb: number;
  /** Heap in use right after a forced full GC; undefined when the probe did not answer. */
  heapAfterGcMb?: number;
}

export interface MemoryVerdict {
  /** Heap after GC just after the warm-up, and at the end (the lowest of the last three samples each). */
  heapAfterGcMb: { start: number; end: number; growth: number };
  /** Peak RSS of each quarter of the run after the warm-up; the last one is the plateau. */
  rssPeaksMb: number[];
  rssPlateauMb: number;
  flat: boolean;
  /** Judged on runs of a minute or more with enough heap samples; shorter ones are reported only. */
  judged: boolean;
}

/** Growth allowed of the heap after GC: 10 MB or 25 %, whichever is more. */
export const ALLOWED_HEAP_GROWTH = { mb: 10, share: 0.25 };

export function judgeMemory(samples: readonly MemorySample[], seconds: number): MemoryVerdict {
  const warm = samples.filter((s) => s.at >= seconds / 3);
  const withHeap = warm.filter((s) => s.heapAfterGcMb !== undefined) as Required<MemorySample>[];
  // The lowest of three: a sample taken while a burst of answers was in flight is not the baseline.
  const low = (xs: Required<MemorySample>[]) => (xs.length ? Math.min(...xs.map((s) => s.heapAfterGcMb)) : 0);
  const start = low(withHeap.slice(0, 3));
  const end = low(withHeap.slice(-3));
  const growth = Math.round((end - start) * 10) / 10;
  const rssPeaksMb = quarters(warm.length ? warm : samples).map((q) => Math.max(...q.map((s) => s.rssMb)));
  return {
    heapAfterGcMb: { start, end, growth },
    rssPeaksMb,
    rssPlateauMb: rssPeaksMb[rssPeaksMb.length - 1] ?? 0,
    flat: growth <= Math.max(ALLOWED_HEAP_GROWTH.mb, start * ALLOWED_HEAP_GROWTH.share),
    judged: seconds >= 60 && withHeap.length >= 6,
  };
}

/** Four windows of (nearly) equal length; fewer when there are fewer than four samples. */
function quarters<T>(xs: readonly T[]): T[][] {
  const n = Math.min(4, xs.length);
  return Array.from({ length: n }, (_, i) => xs.slice(Math.round((i * xs.length) / n), Math.round(((i + 1) * xs.length) / n)));
}
