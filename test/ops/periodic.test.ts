import { createLogger } from '../../src/log';
import { startPeriodic } from '../../src/ops/periodic';
import { sweepJob } from '../../src/ops/sweeps';
import { createMetrics } from '../../src/ops/metrics';
import type { AuditRecord, Leases } from '../../src/store';

// Jobs that run on one instance at a time: the lease decides who runs, a
// stopped holder hands over, a dead one is replaced once its lease expires.

const quiet = createLogger({ level: 'error', write: () => undefined });

function memoryLeases(): Pick<Leases, 'take' | 'release'> {
  const leases = new Map<string, { owner: string; until: number }>();
  return {
    take(name, owner, nowMs, ttlMs) {
      const held = leases.get(name);
      if (held && held.owner !== owner && held.until > nowMs) return Promise.resolve(false);
      leases.set(name, { owner, until: nowMs + ttlMs });
      return Promise.resolve(true);
    },
    release(name, owner) {
      if (leases.get(name)?.owner === owner) leases.delete(name);
      return Promise.resolve();
    },
  };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  return check();
};

test('of two instances only the lease holder runs the job; when it stops, the other takes over', async () => {
  const leases = memoryLeases();
  const runs = { a: 0, b: 0 };
  const job = (name: 'a' | 'b') =>
    startPeriodic({
      name: 'sweeps',
      intervalMs: 10,
      logger: quiet,
      run: () => Promise.resolve(void runs[name]++),
      lease: { leases, name: 'ops:sweeps', owner: name, ttlMs: 60_000 },
    });
  const a = job('a');
  expect(await until(() => runs.a >= 3)).toBe(true);
  const b = job('b');
  await until(() => runs.a >= 10);
  expect(runs.b).toBe(0);
  expect(b.leading).toBe(false);
  await a.stop();
  expect(await until(() => runs.b >= 3)).toBe(true);
  await b.stop();
});

test('a holder that died (its lease not renewed) is replaced once the lease expires', async () => {
  const leases = memoryLeases();
  let clock = 1_000;
  await leases.take('ops:sweeps', 'dead', clock, 5_000);
  let runs = 0;
  const job = startPeriodic({
    name: 'sweeps',
    intervalMs: 5,
    logger: quiet,
    now: () => clock,
    run: () => Promise.resolve(void runs++),
    lease: { leases, name: 'ops:sweeps', owner: 'alive', ttlMs: 5_000 },
  });
  await new Promise((r) => setTimeout(r, 50));
  expect(runs).toBe(0);
  clock += 5_000;
  expect(await until(() => runs > 0)).toBe(true);
  await job.stop();
});

test('a sweep settles interrupted records, hears of each once, and prunes in batches until less than a batch is left', async () => {
  const record = { id: 7, action: 'disk_add', target: 'vs:44', outcome: 'interrupted' } as unknown as AuditRecord;
  const pruned = [1000, 1000, 12];
  const calls: string[] = [];
  const heard: number[] = [];
  const metrics = createMetrics({ defaults: false });
  const sweep = sweepJob({
    store: {
      audit: {
        recoverInterrupted() {
          calls.push('recover');
          return Promise.resolve(calls.filter((c) => c === 'recover').length === 1 ? [record] : []);
        },
      },
      retention: {
        prune() {
          calls.push('prune');
          return Promise.resolve({ claims: 0, records: pruned.shift() ?? 0, housekeeping: 0 });
        },
      },
    },
    logger: quiet,
    metrics,
    onInterrupted: (r) => heard.push(r.id),
  });
  await sweep();
  await sweep();
  expect(heard).toEqual([7]);
  expect(calls).toEqual(['recover', 'prune', 'prune', 'prune', 'recover', 'prune']);
  expect(await metrics.registry.getSingleMetricAsString('vs_chatops_sweeps_total')).toContain('vs_chatops_sweeps_total{sweep="recovery",outcome="ok"} 2');
});
