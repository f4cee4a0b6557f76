import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BOT_NODE_FLAGS } from '../../bench/launch-targets';

// Keeps the benchmark from rotting: `npm run bench -- --smoke` runs every
// scenario with a tiny load, and each one must come back with figures. No
// figure is judged here; timings belong to `npm run bench`, not to `npm test`.

const REPO_ROOT = resolve(__dirname, '..', '..');

interface Smoke {
  scenarios: Record<string, unknown>;
  targets: { target: string; figure: string; pass: boolean }[];
}

/** Resolves with what the run printed: the report on stdout, progress on stderr. */
function runSmoke(out: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out], { cwd: REPO_ROOT, timeout: 180_000 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`the smoke run failed: ${error.message}\n${stderr}`));
      else done({ stdout, stderr });
    });
  });
}

/** Every leaf of a figures object, with its path. */
function leaves(value: unknown, path: string): [string, unknown][] {
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  return [[path, value]];
}

describe('npm run bench -- --smoke', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-chatops-bench-smoke-'));
  const out = join(dir, 'results.json');
  let smoke: Smoke;
  let printed: { stdout: string; stderr: string };

  beforeAll(async () => {
    printed = await runSmoke(out);
    smoke = JSON.parse(readFileSync(out, 'utf8')) as Smoke;
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    'openLoop',
    'closedLoop',
    'singleFlight',
    'cloudClient',
    'render',
    'memoryAndStartup',
    'localMode',
    'hostileTraffic',
    'slowClient',
    'unfurls',
    'serverCard',
    'names',
    'appHome',
    'approvalClicks',
    'steps',
    'exports',
    'follow',
    'onCall',
    'watch',
    'agents',
    'firewallPreview',
    'panelChanges',
  ])('scenario %s produces numeric figures', (scenario) => {
    const figures = leaves(smoke.scenarios[scenario], scenario);
    expect(figures.length).toBeGreaterThan(0);
    const notNumbers = figures.filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v));
    expect(notNumbers).toEqual([]);
  });

  it('measures every server of the closed loop', () => {
    const targets = (smoke.scenarios.closedLoop as { targets: Record<string, unknown> }).targets;
    expect(Object.keys(targets).sort()).toEqual(['bare-bolt', 'bare-http', 'minimal-same-work', 'ours']);
  });

  it('prints a report that speaks of the product, not of our issues, internal names or test files', () => {
    expect(printed.stdout).toContain('vs-chatops / minimal same-work');
    expect(printed.stdout).toMatch(/\n {2}vs-chatops +\d/);
    for (const text of [printed.stdout, printed.stderr]) expect(text).not.toMatch(/issue|\bours\b|test\/|\.test\.ts/i);
  });

  // What a scenario counts, as opposed to what it times, holds at any size: a scenario whose load was refused measures nothing.
  it('unfurls every link it sends (the events come from the workspace the bot serves)', () => {
    const unfurls = smoke.scenarios.unfurls as { unfurls: number; unfurled: number; serverRequests: number };
    expect(unfurls.unfurled).toBe(unfurls.unfurls);
    expect(unfurls.serverRequests).toBe(1);
  });

  it('reads every target of the issue from a figure', () => {
    expect(smoke.targets.length).toBeGreaterThanOrEqual(10);
    for (const t of smoke.targets) {
      expect(typeof t.pass).toBe('boolean');
      expect(t.figure).toMatch(/\d/);
    }
  });
});

describe('the heap settings of the benchmark', () => {
  it('are those `npm start` runs the bot with, for every target and for the bench process', () => {
    const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(BOT_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of BOT_NODE_FLAGS) {
      expect(scripts.start).toContain(` ${flag} `);
      expect(scripts.bench).toContain(` ${flag} `);
    }
  });
});
