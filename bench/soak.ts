import { DEFAULT_SOAK, runSoak } from './soak/run';

// npm run soak [-- --seconds N] [--users N] [--fault-rate 0.08] [--json]
// A mixed load (reads, pages, changes, faults) on the real bot process; prints
// progress, then the report; exits 1 when the verdict is not ok.

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds') ?? DEFAULT_SOAK.seconds);
  const users = Number(arg('users') ?? DEFAULT_SOAK.users);
  const faultRate = Number(arg('fault-rate') ?? DEFAULT_SOAK.faultRate);
  if (!(seconds > 0) || !(users > 0) || !(faultRate >= 0 && faultRate <= 1)) {
    process.stderr.write('usage: npm run soak -- [--seconds N>0] [--users N>0] [--fault-rate 0..1] [--json]\n');
    process.exit(2);
  }
  const json = process.argv.includes('--json');
  process.stdout.write(`[soak] ${seconds}s, ${users} users, fault rate ${faultRate}: reads, pages, disk adds, restores on the real bot process\n`);
  const report = await runSoak({
    seconds,
    users,
    faultRate,
    sampleEverySeconds: Math.max(2, Math.min(10, Math.round(seconds / 12))),
    log: json ? () => undefined : undefined,
  });
  if (json) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    const heapVerdict = report.memory.judged ? (report.memory.flat ? 'flat' : 'GREW') : 'not judged on runs under 60 s';
    const lines = [
      `requests        ${report.requests} (${Object.entries(report.byKind)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
      `outcomes        ${Object.entries(report.outcomes)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `faults injected ${report.faultsInjected}`,
      `latency         p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms`,
      `bot RSS (MB)    ${report.memorySamples.map((s) => `${s.at}s:${s.rssMb}`).join(' ')}`,
      `heap after GC   ${report.memorySamples.map((s) => `${s.at}s:${s.heapAfterGcMb ?? '?'}`).join(' ')}`,
      `memory          heap after GC ${report.memory.heapAfterGcMb.start} → ${report.memory.heapAfterGcMb.end} MB after warm-up (${heapVerdict}); ` +
        `RSS peaks per quarter ${report.memory.rssPeaksMb.join(' → ')} MB, plateau ${report.memory.rssPlateauMb} MB`,
      `unexplained     ${report.unexplained.count}${report.unexplained.examples.length ? '\n  ' + report.unexplained.examples.join('\n  ') : ''}`,
      `verdict         ${report.verdict.ok ? 'OK' : 'FAIL: ' + report.verdict.reasons.join('; ')}`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  }
  process.exit(report.verdict.ok ? 0 : 1);
}

main().catch((error: unknown) => {
  process.stderr.write(`soak failed to run: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
