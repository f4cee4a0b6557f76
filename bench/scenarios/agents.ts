import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { defaultSeed } from '@vs-chatops/cloud-sandbox';
import { createAgentTokens } from '../../src/agents/tokens';
import { openSqliteStore } from '../../src/store/sqlite';
import { launchTarget } from '../launch-targets';
import { percentile, round } from '../stats';
import type { TargetProcess } from '../target-process';
import type { BenchWorld } from '../world';

// Scenario 24: agents over MCP (docs/product.md, Agents ask, people decide). A bot of its own, VS_MCP on, and an
// agent token made for an operator in its store before it starts (as `/vs agent token` makes one). Calls are
// JSON-RPC `tools/call` POSTs to /mcp with the token as a bearer, as an MCP client sends them over Streamable HTTP
// (the endpoint is stateless: any call may come first). (a) `reads` server_status calls, `connections` at a time on
// different servers, the cloud API answering after `upstreamDelayMs`: call → answer p99, which should be about one
// round trip; (b) `sameServer` identical server_status calls at once, whose reads single flight should share: one
// cloud call per resource (counted by the sandbox itself); (c) `requests` request_power reboots, `connections` at a
// time, the cloud answering at once: the answer (recorded, posted in VS_AGENT_CHANNEL, nothing sent to the cloud).

export interface AgentsLoad {
  reads: number;
  connections: number;
  upstreamDelayMs: number;
  sameServer: number;
  requests: number;
}

export interface AgentsFigures {
  upstreamDelayMs: number;
  reads: number;
  readAnswers: number;
  readP50Ms: number;
  readP99Ms: number;
  sameServer: {
    calls: number;
    answered: number;
    /** Requests that reached the cloud API, and the resources they were for. */
    cloudCalls: number;
    resources: number;
  };
  requests: number;
  requested: number;
  requestP50Ms: number;
  requestP99Ms: number;
  /** Change requests (POST, PATCH, DELETE) that reached the cloud API while agents asked: none. */
  cloudChanges: number;
}

/** The seeded servers, in turn: two reads in flight are always of two servers, so single flight shares nothing between them. */
const SERVERS = [42, 43, 44, 46, 47, 48, 77] as const;
const SAME = 45;
const WARM_REQUESTS = 3;
const OWNER = 'UBENCHAGENT';
const AGENT_CHANNEL = 'CBENCHAGENTS';

interface Answer {
  ok: boolean;
  ms: number;
}

export async function runAgents(
  world: BenchWorld,
  load: AgentsLoad,
  progress: (message: string) => void,
  options: { cpuProfile?: boolean } = {},
): Promise<AgentsFigures> {
  const dbPath = join(world.scratchDir, 'agents.sqlite');
  // The token, made by the bot's own keeper in the store the bot then opens.
  const store = openSqliteStore(dbPath);
  const made = await createAgentTokens({ store: store.agentTokens, now: Date.now, maxHours: 24 }).make(OWNER, 'bench', 2);
  await store.close();
  if (made.outcome !== 'made') throw new Error(`no agent token made: ${made.outcome}`);

  const bot: TargetProcess = await launchTarget('ours', world, {
    cpuProfile: options.cpuProfile === true,
    env: {
      VS_DB_PATH: dbPath,
      VS_MCP: 'on',
      VS_AGENT_CHANNEL: AGENT_CHANNEL,
      VS_OPERATORS: OWNER,
      VS_AGENT_CALLS_PER_MINUTE: '1000000',
      VS_CHANGES_PER_USER_PER_MINUTE: '1000000',
    },
  });
  const origin = new URL(bot.eventsUrl).origin;
  const pool = new Pool(origin, { connections: Math.max(load.connections, load.sameServer) });
  let id = 0;
  const call = async (tool: string, args: Record<string, unknown>, expect: (result: Record<string, unknown>) => boolean): Promise<Answer> => {
    const started = performance.now();
    const { statusCode, body } = await pool.request({
      method: 'POST',
      path: '/mcp',
      headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool, arguments: args } }),
    });
    const answer = (await body.json()) as { result?: Record<string, unknown> };
    return { ok: statusCode === 200 && answer.result !== undefined && expect(answer.result), ms: performance.now() - started };
  };
  const statusOf = (vsId: number) => call('server_status', { server: vsId }, (r) => r.isError !== true && r.structuredContent !== undefined);
  /** `amount` calls, `connections` at a time. */
  const inTurn = async (amount: number, connections: number, one: (n: number) => Promise<Answer>): Promise<Answer[]> => {
    const answers: Answer[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(connections, amount) }, async () => {
        while (next < amount) answers.push(await one(next++));
      }),
    );
    return answers;
  };

  try {
    // A few first, unmeasured: a bot just started answers its first requests slower.
    await inTurn(4, 2, (n) => statusOf(SERVERS[n % SERVERS.length]!));

    progress(`24. agents: ${load.reads} server_status calls, ${load.connections} at a time, the cloud answering after ${load.upstreamDelayMs} ms`);
    world.sandbox.reset();
    world.sandbox.setDelay(load.upstreamDelayMs);
    const reads = await inTurn(load.reads, load.connections, (n) => statusOf(SERVERS[n % SERVERS.length]!));

    progress(`24. agents: ${load.sameServer} identical server_status calls at once`);
    world.sandbox.reset();
    const same = await Promise.all(Array.from({ length: load.sameServer }, () => statusOf(SAME)));
    const paths = world.sandbox.requests.map((r) => r.path.replace(/\.(json|xml).*$/, ''));

    progress(`24. agents: ${load.requests} request_power reboots, ${load.connections} at a time`);
    world.sandbox.setDelay(0);
    world.sandbox.reset();
    // Each of a server of its own, on and idle (the made-up ones): a reboot fits, and no request waits on another's.
    const seeded = new Set(defaultSeed().servers.map((s) => s.id));
    const idle = world.sandbox.serverIds().filter((vsId) => !seeded.has(vsId));
    if (idle.length < load.requests + WARM_REQUESTS) throw new Error(`the account has ${idle.length} made-up servers, fewer than the requests`);
    const reboot = (vsId: number, n: number) =>
      call(
        'request_power',
        { server: vsId, power_action: 'reboot', reason: `bench request ${n}` },
        (r) => (r.structuredContent as { status?: unknown } | undefined)?.status === 'requested',
      );
    // A few first, unmeasured (the request path's first calls compile its code).
    await inTurn(WARM_REQUESTS, 1, (n) => reboot(idle[n]!, n));
    const asked = await inTurn(load.requests, load.connections, (n) => reboot(idle[WARM_REQUESTS + n]!, n));
    const ms = (answers: Answer[]) => answers.filter((a) => a.ok).map((a) => a.ms);
    return {
      upstreamDelayMs: load.upstreamDelayMs,
      reads: load.reads,
      readAnswers: reads.filter((a) => a.ok).length,
      readP50Ms: round(percentile(ms(reads), 50), 1),
      readP99Ms: round(percentile(ms(reads), 99), 1),
      sameServer: {
        calls: load.sameServer,
        answered: same.filter((a) => a.ok).length,
        cloudCalls: paths.length,
        resources: new Set(paths).size,
      },
      requests: load.requests,
      requested: asked.filter((a) => a.ok).length,
      requestP50Ms: round(percentile(ms(asked), 50), 2),
      requestP99Ms: round(percentile(ms(asked), 99), 2),
      cloudChanges: world.sandbox.requests.filter((r) => r.method !== 'GET').length,
    };
  } finally {
    world.sandbox.setDelay(0);
    await pool.close();
    await bot.stop();
    world.slack.reset();
  }
}
