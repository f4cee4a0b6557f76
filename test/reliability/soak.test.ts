import { runSoak } from '../../bench/soak/run';

// The short soak of CI: ten seconds of mixed load with faults on the real bot
// process. It asserts the soak's own verdict on errors (every outcome a user
// saw is explained by an injected fault), not timings: those depend on the machine.

test('ten seconds of reads, pages, changes and faults: zero unexplained errors', async () => {
  const lines: string[] = [];
  const report = await runSoak({ seconds: 10, users: 4, sampleEverySeconds: 2, log: (l) => lines.push(l) });
  expect(report.unexplained).toEqual({ count: 0, examples: [] });
  expect(report.verdict).toEqual({ ok: true, reasons: [] });
  // It really was a mixed load with faults, and the bot was measured.
  expect(report.requests).toBeGreaterThan(50);
  expect(Object.values(report.byKind).every((n) => n > 0)).toBe(true);
  expect(report.faultsInjected).toBeGreaterThan(0);
  expect(report.outcomes.ok).toBeGreaterThan(report.requests / 2);
  expect(report.memorySamples.length).toBeGreaterThan(3);
  expect(report.memorySamples.every((s) => s.rssMb > 0)).toBe(true);
  // The heap probe answered: heap after a forced GC is below RSS, every time.
  expect(report.memorySamples.every((s) => s.heapAfterGcMb !== undefined && s.heapAfterGcMb > 0 && s.heapAfterGcMb < s.rssMb)).toBe(true);
}, 60_000);
