import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultSeed, startSandbox, type Sandbox, type SandboxSeed } from '@vs-chatops/cloud-sandbox';
import { startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';
import { READS } from '../src/cloud/reads';

// What every scenario shares, all in the bench process: the Slack stand-in, the
// sandbox cloud API (its delay is the injectable upstream latency) and a
// scratch directory for the bot's SQLite file.

export const BENCH_CLOUD_API_KEY = 'bench-cloud-api-key-0123456789';

/** The servers of the account every scenario runs against: the seeded ones, and made-up ones to a realistic size. */
export const ACCOUNT_SERVERS = 5000;

export interface BenchWorld {
  slack: SlackStandIn;
  sandbox: Sandbox;
  /** How many servers the account holds (ACCOUNT_SERVERS). */
  servers: number;
  /** Of those, the seeded ones (the rest are made up: scenarios/names.ts). */
  seededServers: number;
  scratchDir: string;
  /** Requests the sandbox has answered since the world started (its request log keeps only the latest). */
  cloudRequests(): number;
  close(): Promise<void>;
}

export async function startWorld(): Promise<BenchWorld> {
  // Lenient: the load generator mints its own response_urls; only arrival times are kept.
  const slack = await startSlackStandIn({ strict: false, keepBodies: false });
  let cloudRequests = 0;
  const seed = defaultSeed();
  const sandbox = await startSandbox({
    reads: READS,
    port: 0,
    apiKey: BENCH_CLOUD_API_KEY,
    delayMs: 0,
    seed: withServers(seed, ACCOUNT_SERVERS),
    onRequest: () => void cloudRequests++,
  });
  const scratchDir = mkdtempSync(join(tmpdir(), 'vs-chatops-bench-'));
  return {
    slack,
    sandbox,
    servers: ACCOUNT_SERVERS,
    seededServers: seed.servers.length,
    scratchDir,
    cloudRequests: () => cloudRequests,
    async close() {
      await sandbox.close();
      await slack.close();
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}

/** The made-up servers' names: `srv-1`…, none a prefix of another seeded label. */
export const madeUpName = (n: number) => `srv-${n}`;

/** The world's seed grown to `servers` servers: copies of the first seeded one, each with its own id, label and hostname. */
export function withServers(seed: SandboxSeed, servers: number): SandboxSeed {
  const [model] = seed.servers;
  if (!model || seed.servers.length >= servers) return seed;
  const firstId = Math.max(...seed.servers.map((s) => s.id)) + 1000;
  const more = Array.from({ length: servers - seed.servers.length }, (_, i) => ({
    ...model,
    id: firstId + i,
    identifier: `bench${String(i).padStart(8, '0')}`,
    label: madeUpName(i + 1),
    hostname: `${madeUpName(i + 1)}.bench.example`,
    ip_addresses: [],
  }));
  return { ...seed, servers: [...seed.servers, ...more] };
}
