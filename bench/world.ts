import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import { startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';
import { READS } from '../src/cloud/reads';

// What every scenario shares, all in the bench process: the Slack stand-in, the
// sandbox cloud API (its delay is the injectable upstream latency) and a
// scratch directory for the bot's SQLite file.

export const BENCH_CLOUD_API_KEY = 'bench-cloud-api-key-0123456789';

export interface BenchWorld {
  slack: SlackStandIn;
  sandbox: Sandbox;
  scratchDir: string;
  /** Requests the sandbox has answered since the world started (its request log keeps only the latest). */
  cloudRequests(): number;
  close(): Promise<void>;
}

export async function startWorld(): Promise<BenchWorld> {
  // Lenient: the load generator mints its own response_urls; only arrival times are kept.
  const slack = await startSlackStandIn({ strict: false, keepBodies: false });
  let cloudRequests = 0;
  const sandbox = await startSandbox({ reads: READS, port: 0, apiKey: BENCH_CLOUD_API_KEY, delayMs: 0, onRequest: () => void cloudRequests++ });
  const scratchDir = mkdtempSync(join(tmpdir(), 'vs-chatops-bench-'));
  return {
    slack,
    sandbox,
    scratchDir,
    cloudRequests: () => cloudRequests,
    async close() {
      await sandbox.close();
      await slack.close();
      rmSync(scratchDir, { recursive: true, force: true });
    },
  };
}
