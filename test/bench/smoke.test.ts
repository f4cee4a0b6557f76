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

function runSmoke(out: string): Promise<void> {
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke', '--out', out], { cwd: REPO_ROOT, timeout: 90_000 }, (error, _stdout, stderr) => {
      if (error) fail(new Error(`the smoke run failed: ${error.message}\n${stderr}`));
      else done();
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

  beforeAll(async () => {
    await runSmoke(out);
    smoke = JSON.parse(readFileSync(out, 'utf8')) as Smoke;
  }, 90_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(['openLoop', 'closedLoop', 'singleFlight', 'cloudClient', 'render', 'memoryAndStartup'])('scenario %s produces numeric figures', (scenario) => {
    const figures = leaves(smoke.scenarios[scenario], scenario);
    expect(figures.length).toBeGreaterThan(0);
    const notNumbers = figures.filter(([, v]) => typeof v !== 'number' || !Number.isFinite(v));
    expect(notNumbers).toEqual([]);
  });

  it('measures every server of the closed loop', () => {
    const targets = (smoke.scenarios.closedLoop as { targets: Record<string, unknown> }).targets;
    expect(Object.keys(targets).sort()).toEqual(['bare-bolt', 'bare-http', 'minimal-same-work', 'ours']);
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
