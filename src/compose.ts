import type { CustomRoute } from '@slack/bolt';
import { approvalActions, createChanges, createPolicy, type Changes, type Policy, type Role } from './changes';
import { createCloudClient, type CloudClientDeps } from './cloud/client';
import type { CloudClient } from './cloud/client.types';
import { createSandboxLabel } from './cloud/sandbox-label';
import { FOLLOW_BACKOFF_MAX_S, secretValues, type Config } from './config';
import { CodedError } from './errors';
import { createFollower, FOLLOW_ROUND_MS, type Follower } from './follow';
import { localMode, startLocalPagerDuty } from './local-mode';
import { createOnCall, createPagerDutyRest, type OnCall } from './oncall';
import { createChangeEventSender, pagerDutyEvents } from './timeline';
import { changeEventFacts, slackPeople } from './slack/people';
import { createLogger, type Logger } from './log';
import { createOps, type Ops } from './ops';
import { seenSignatures } from './ops/deliveries';
import { createMetrics, observeCloudRequest } from './ops/metrics';
import { serveOpsRoutes, type OpsServer } from './ops/ops-server';
import { SANDBOX_HEADER, startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import { createSlackApp, type SlackApp } from './slack/app';
import { agentRequestPoster, expireApprovals } from './slack/approval-messages';
import { followReporter } from './slack/follow-messages';
import { auditChannelPoster } from './slack/audit-post';
import { botAuthorization } from './slack/bot-authorization';
import { toBoltLogger } from './slack/bolt-logger';
import type { ListenerContext } from './slack/context';
import { MCP_PATH, mcpHandler } from './agents/mcp';
import { createAgentTokens } from './agents/tokens';
import { slackChannelDirectory, slackGroupDirectory } from './slack/directories';
import { createInFlight } from './slack/in-flight';
import { createReceiver } from './slack/receiver';
import { createUserLimits } from './slack/user-limits';
import { servedWorkspaces } from './slack/workspaces';
import { createBotClient, webApiOptions } from './slack/web-api';
import { deferStore, openStore, openStoreWhenReachable, type Store, type StoreWaitOptions } from './store';
import { READS } from './cloud/reads';
import { createNameIndex, type NameIndex } from './cloud/names';
import { NO_TRACING, traceStore, type Tracing } from './tracing';
import { createWatchKeeper } from './watch/keeper';
import { createWatchPoll, WATCH_LEASE, type WatchPoll } from './watch/poll';
import { watchTeller } from './slack/watch-messages';

// The one composition root. From a Config (and, in tests, a few overrides) it
// builds every part of the bot, each after what it needs, and nothing else
// does:
//   traces → logger → (local mode: the stand-in for Slack) → metrics → cloud API (the
//   in-process sandbox when VS_API_URL=sandbox) → store → Slack Web API
//   client and directories → policy → ops (readiness, audit outbox, sweeps)
//   → change door → per-person limits → Bolt app;
// start() starts them and stop() stops them in reverse. main.ts and the test
// harness both call composeBot(). It only wires: adapters live with what they
// adapt (src/slack/directories.ts), settings are shaped in config.ts.
//
// The store is wired at once but opened by start(), which listens first and
// then waits for the database (src/store/wait.ts): meanwhile /healthz is 200,
// /readyz 503 naming the store, Slack's requests over HTTP are answered 503,
// and in Socket Mode the socket is not connected. stop() ends the wait.
//
// To add a part: build it here, after what it needs, and register its
// lifecycle with `parts.add()` (started in order, stopped in reverse). HTTP
// routes go into `routes`; audit posts go through the outbox (`postAudit`).

export interface ComposeOverrides {
  logger?: Logger;
  now?: () => number;
  /** A store the caller opened (and closes); default: openStore(config) (PostgreSQL at DATABASE_URL, else SQLite at VS_DB_PATH), closed by stop(). */
  store?: Store;
  /** The cloud API's base URL instead of config.cloud.url (a fault server, a sandbox started by the test). */
  cloudUrl?: string;
  /** Passed to the cloud client, e.g. `{ retry: { baseDelayMs: 5 } }` in tests. */
  cloudDeps?: Omit<CloudClientDeps, 'logger'>;
  /** Label every message as sandbox data (true) or never (false); default: when the built-in sandbox runs or the cloud API answers as one. */
  sandboxLabel?: boolean;
  /** How start-up waits for the store's database: the pause after each try, and the sleep (tests step through the tries). */
  storeWait?: Pick<StoreWaitOptions, 'delayMs' | 'sleep'>;
}

/** start() was cut short by stop() (a signal while start-up waited for the database): not a failure. */
export class StoppedWhileStarting extends CodedError {
  override readonly name = 'StoppedWhileStarting';
  readonly code = 'BOT_STOPPED_WHILE_STARTING';
  constructor() {
    super('stopped before start-up was done');
  }
}

export interface Bot {
  readonly config: Config;
  readonly logger: Logger;
  readonly cloud: CloudClient;
  /** Servers by name: read once at start-up (not waited for), then kept VS_NAME_INDEX_TTL_S. */
  readonly names: NameIndex;
  readonly store: Store;
  readonly policy: Policy;
  readonly changes: Changes;
  /** Follows every change the cloud accepted to its end (a round of the ops' periodic work; tests run one with round()). */
  readonly follower: Follower;
  /** The watch poll (a round of every instance, polling only under its lease; tests run one with round()). */
  readonly watchPoll: WatchPoll;
  readonly slack: SlackApp;
  /** The built-in simulator, when VS_API_URL=sandbox. */
  readonly sandbox: Sandbox | undefined;
  /** Metrics, readiness, the audit outbox sender and the sweeps. */
  readonly ops: Ops;
  /**
   * Listens (health checks answer from then on), waits for the store's database, then serves; resolves once
   * ready, in HTTP mode with the bound port. Rejects with StoppedWhileStarting when stop() came first; after
   * any other failure (a ConfigError for VS_DB_PATH or DATABASE_URL, Slack unreachable in Socket Mode) what
   * was started is stopped.
   */
  start(port?: number): Promise<{ port: number | null }>;
  /** Stops taking requests, lets in-flight work finish (up to `graceMs`), then closes every part. */
  stop(graceMs?: number): Promise<void>;
}

/** A part with a life of its own: started in the order added, stopped in reverse. */
interface Lifecycle {
  name: string;
  start?: () => Promise<void> | void;
  stop: () => Promise<void>;
}

export async function composeBot(config: Config, overrides: ComposeOverrides = {}): Promise<Bot> {
  // Traces first (OpenTelemetry, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set): the logger's lines carry the
  // ids of the trace they are written in, and every HTTP call made inside one is a span of it.
  const tracing: Tracing = config.telemetry === null ? NO_TRACING : (await import('./telemetry')).startTelemetry({ ...config, telemetry: config.telemetry });
  const logger =
    overrides.logger ??
    createLogger({ level: config.logLevel, secrets: secretValues(config), ...(tracing.on ? { traceFields: () => tracing.logFields() } : {}) });
  // VS_APPROVALS against the table of changes, before anything starts: an unknown action stops start-up (a ConfigError).
  const approvals = { ...config.approvals, actions: approvalActions(config.approvals.actions) };
  const now = overrides.now ?? (() => Date.now());
  const lifecycles: Lifecycle[] = [];
  const parts = { add: (part: Lifecycle) => void lifecycles.push(part) };
  // Stopped last: the spans of everything stopping before it are still sent.
  if (tracing.on) parts.add({ name: 'traces', stop: () => tracing.shutdown() });
  // Local mode: a stand-in for Slack and its page on PORT, started first; the bot, unchanged, behind it on loopback.
  const local = config.mode === 'local' ? localMode(config, logger) : undefined;
  if (local) parts.add({ name: 'local stand-in for Slack', start: local.start, stop: local.stop });

  try {
    // Metrics first: the cloud client counts every request into them.
    const metrics = createMetrics();

    // The cloud API.
    let sandbox: Sandbox | undefined;
    let cloudUrl = overrides.cloudUrl ?? config.cloud.url;
    if (cloudUrl === 'sandbox') {
      sandbox = await startSandbox({ reads: READS, port: 0, accountId: config.cloud.accountId, apiKey: config.cloud.apiKey });
      parts.add({ name: 'sandbox', stop: () => sandbox!.close() });
      cloudUrl = sandbox.url;
      logger.warn('VS_API_URL=sandbox: the bot is running on the built-in simulator with fake servers, not a real cloud account', { sandboxUrl: sandbox.url });
    }
    // The control panel whose server links are unfurled: VS_PANEL_URL, or the address the cloud API is reached at (the sandbox's own).
    const panelUrl = config.panelUrl ?? new URL(cloudUrl).origin;
    const label = createSandboxLabel({ builtIn: sandbox !== undefined, forced: overrides.sandboxLabel, cloudUrl, logger });
    const sandboxLabel = () => label.on;
    const cloud = createCloudClient(
      { ...config.cloud, url: cloudUrl },
      {
        ...overrides.cloudDeps,
        // A sandbox reached by URL says so in a header of its own: its answers are then labelled as the built-in one's.
        sandbox: { header: SANDBOX_HEADER, noticed: label.noticed },
        onRequestDone: observeCloudRequest(metrics),
        logger: logger.child({ component: 'cloud' }),
      },
    );
    parts.add({ name: 'cloud client', stop: () => cloud.close() });
    // Servers by name: label, hostname, address → id, from the account's server list (one read for everyone, kept VS_NAME_INDEX_TTL_S).
    const names = createNameIndex({ list: (page) => cloud.listServers(page), ttlMs: config.names.ttlMs, now, logger: logger.child({ component: 'names' }) });

    // The store: wired now, opened by start() once its database answers (unless the caller opened one).
    const deferred = overrides.store ? undefined : deferStore(config.databaseUrl ? 'postgres' : 'sqlite');
    const store = overrides.store ?? deferred!.store;
    if (deferred) parts.add({ name: 'store', stop: () => store.close() });

    // Slack's Web API, for calls made outside a listener.
    const boltLogger = toBoltLogger(logger.child({ component: 'bolt' }));
    const clientOptions = webApiOptions(config);
    const botClient = createBotClient(config, boltLogger);
    const inFlight = createInFlight();

    // PagerDuty (docs/product.md, On call): local mode's stand-in, started here, or the one the settings name.
    let pagerDutyUrls = { api: config.pagerDuty.apiUrl, events: config.pagerDuty.eventsUrl };
    if (config.pagerDuty.standIn) {
      const standIn = await startLocalPagerDuty(config, (event) => local?.timeline(event));
      parts.add({ name: 'PagerDuty stand-in', stop: () => standIn.close() });
      pagerDutyUrls = { api: standIn.url, events: standIn.url };
    }
    // People as Slack shows them (on call matches them to PagerDuty by email; change events name them).
    const people = slackPeople(botClient, { cacheMs: config.onCall?.cacheMs ?? 60_000, now });
    // Who is on call now: PagerDuty's REST API, each answer kept for VS_ONCALL_CACHE_S; what it cannot answer grants nothing.
    let onCall: (OnCall & { role: Role }) | undefined;
    if (config.onCall) {
      const rest = createPagerDutyRest({ apiUrl: pagerDutyUrls.api, token: config.pagerDuty.token });
      parts.add({ name: 'PagerDuty REST client', stop: () => rest.close() });
      onCall = {
        role: config.onCall.role,
        ...createOnCall({ rest, emails: people, settings: config.onCall, now, logger: logger.child({ component: 'oncall' }) }),
      };
    }

    // Who may (policy): roles from the config, user groups and channel membership from Slack, and being on call.
    const policy = createPolicy(config.roles, slackGroupDirectory(botClient), {
      channels: slackChannelDirectory(botClient),
      logger,
      now,
      ...(onCall ? { onCall } : {}),
    });

    // Operations: readiness, /healthz /readyz /metrics, the Slack retry filter, and the periodic work
    // (the audit outbox sender, recovery of interrupted changes, retention, the store's health).
    const postAudit = config.auditChannel ? auditChannelPoster(config, { channel: config.auditChannel, sandbox: sandboxLabel, logger: boltLogger }) : undefined;
    // Signed deliveries run once (a replay is dropped): noted in the store on PostgreSQL, shared by every instance; on
    // SQLite (one instance) by the process, since a write per request would wait for the disk on the event loop.
    const signed = store.dialect === 'postgres' ? { inStore: store.claims } : { inProcess: seenSignatures() };
    const ops = createOps({ config, logger, metrics, claims: store.claims, signed, store, postAudit, now });
    // Its periodic work starts once the store is open (start() below).
    parts.add({ name: 'ops', stop: () => ops.stop() });
    // What the door and the listeners see: each answer of the store (or its StoreUnavailableError) updates /readyz at
    // once, and, in a trace, is a span of it.
    const watchedStore = tracing.on ? traceStore(ops.watch(store), tracing) : ops.watch(store);
    // The change door, with who may (policy) and who hears of each record (ops: metrics and the audit outbox).
    const changes = createChanges({
      cloud,
      labelOf: (vsId) => names.labelOf(vsId),
      knowLabels: (waitMs) => names.warm(waitMs),
      // The cloud as configured (`sandbox` for the built-in one, whatever port it listens on): approvals are sent to it or not at all.
      cloudAccount: { apiUrl: overrides.cloudUrl ?? config.cloud.url, accountId: config.cloud.accountId },
      store: watchedStore,
      policy,
      approvals,
      now,
      logger,
      onRecorded: ops.recorded,
      lockTtlMs: config.ops.lockTtlMs,
      follow: { intervalMs: config.follow.intervalMs, reads: cloud.changeReads },
      formLimits: config.forms,
      breakGlass: { ...config.breakGlass, roles: config.roles },
    });
    // Every change the cloud accepts is followed to its end: a round of every instance, each change under a lease of
    // its own, its polls on the change connections (at most half of them, so that changes keep the rest).
    const follower = createFollower({
      reads: cloud.changeReads,
      store: watchedStore,
      reporter: followReporter({ client: botClient, panelUrl, config, sandbox: sandboxLabel, logger, labelOf: (vsId) => names.labelOf(vsId) }),
      settings: { ...config.follow, backoffMaxMs: FOLLOW_BACKOFF_MAX_S * 1000, concurrency: Math.max(1, Math.floor(config.cloud.changeConnections / 2)) },
      owner: ops.instanceId,
      now,
      logger,
      onEnded: ops.followed,
      tracing,
    });
    ops.addRound({ name: 'follow', intervalMs: FOLLOW_ROUND_MS, run: () => follower.round(), stop: () => follower.release() });
    // Every change that ends goes to the incident's timeline (VS_PAGERDUTY_ROUTING_KEY): a round of every instance, each
    // event claimed by one of them at a time from the store's outbox of change events.
    if (config.pagerDuty.routingKey !== null) {
      const events = pagerDutyEvents({ eventsUrl: pagerDutyUrls.events, routingKey: config.pagerDuty.routingKey });
      parts.add({ name: 'PagerDuty events client', stop: () => events.close() });
      const sender = createChangeEventSender({
        events: watchedStore.changeEvents,
        send: events.send,
        facts: changeEventFacts(botClient, people, logger.child({ component: 'timeline' })),
        owner: ops.instanceId,
        logger: logger.child({ component: 'timeline' }),
        now,
        registry: metrics.registry,
      });
      ops.addRound({ name: 'change-events', intervalMs: config.ops.outboxPollMs, run: async () => void (await sender.runOnce()) });
    }
    // Watches (docs/product.md, Watches: the bot speaks first): a round of every instance, which polls only while it holds
    // the watch's lease (three intervals: a dead poller is replaced within that); the account's server list it reads is
    // the name index's too. What it tells goes to Slack through the teller.
    const teller = watchTeller({ client: botClient, sandbox: sandboxLabel, logger });
    const watchLeaseMs = 3 * config.watch.intervalMs;
    const watchPoll = createWatchPoll({
      reads: { listServers: (page) => cloud.listServers(page), listAccountTransactions: (page) => cloud.listAccountTransactions(page) },
      store: watchedStore,
      teller: {
        tell: (notice) => teller.tell(notice),
        summarize: async (channelId, lines) => {
          const told = await teller.summarize(channelId, lines);
          if (told) metrics.watchNotifications.inc({ event: 'quiet_summary' });
          return told;
        },
      },
      settings: {
        lockMs: config.watch.lockMs,
        blindMs: config.watch.blindMs,
        timeZone: config.timeZone,
        leaseMs: watchLeaseMs,
        followedGraceMs: 2 * config.watch.intervalMs,
      },
      owner: ops.instanceId,
      now,
      logger,
      onTold: (notice) => metrics.watchNotifications.inc({ event: notice.event }),
      onPolled: (seconds) => metrics.watchPollSeconds.observe(seconds),
      onList: (servers) => names.offer(servers),
    });
    ops.addRound({
      name: 'watch',
      intervalMs: config.watch.intervalMs,
      run: async () => void (await watchPoll.round()),
      // A stopping instance gives the lease back: another polls at its next round.
      stop: () => watchedStore.leases.release(WATCH_LEASE, ops.instanceId),
    });
    const watches = createWatchKeeper({ store: watchedStore, now, maxPerChannel: config.watch.maxPerChannel, onRecorded: ops.recorded });

    // Approval requests nobody decided in time expire, and their messages say so: a step of the sweeps (one instance at a time).
    ops.addSweep({
      name: 'approval_expiry',
      run: expireApprovals({ changes, client: botClient, sandbox: sandboxLabel, logger: logger.child({ component: 'approvals' }) }),
    });

    // The Bolt app: receiver (with its routes), authorization, listeners.
    const socketMode = config.slack.appToken !== undefined;
    const routes = ops.routes({ mode: socketMode ? 'socket' : 'http', sandbox: sandboxLabel });
    const started = () => ops.readiness.phase !== 'starting';
    // Agents (docs/product.md, Agents ask, people decide): their tokens, and the MCP endpoint at /mcp when VS_MCP is on.
    const agentTokens = createAgentTokens({ store: watchedStore.agentTokens, now, maxHours: config.agents.tokenMaxHours });
    // VS_AGENT_CHANNEL is needed with VS_MCP=on (config.ts refuses to start without it); local mode has its own.
    const agentChannel = config.agents.channel;
    const mcp =
      config.agents.mcp && agentChannel !== null
        ? mcpHandler({
            tokens: agentTokens,
            policy,
            cloud,
            audit: watchedStore.audit,
            allowedOrigins: config.agents.allowedOrigins,
            callsPerMinute: config.agents.callsPerMinute,
            now,
            logger,
            started,
            names,
            tracing,
            requests: {
              changes,
              channelId: agentChannel,
              denyMemoryMs: config.agents.denyMemoryMs,
              secondPerson: approvals.actions,
              formLimits: config.forms,
              post: agentRequestPoster({
                changes,
                client: botClient,
                roles: config.roles,
                sandbox: () => label.on,
                labelOf: (vsId) => names.labelOf(vsId),
                logger: logger.child({ component: 'mcp' }),
              }),
            },
          })
        : undefined;
    // VS_MCP_PORT: /mcp on a server of its own (Socket Mode has no other), not beside /slack/events.
    const mcpOnPort = mcp && config.agents.port === null ? mcp : undefined;
    const receiver = createReceiver(config, {
      logger,
      boltLogger,
      clientOptions,
      routes: routes satisfies CustomRoute[],
      started,
      ...(mcpOnPort ? { mcp: mcpOnPort } : {}),
    });
    const authorization = botAuthorization(botClient, config.slack.botToken, logger, { needsTeam: config.slack.teamId === null });
    const context: ListenerContext = {
      config,
      cloud,
      names,
      panelUrl,
      policy,
      onCall,
      changes,
      follower,
      botClient,
      store: watchedStore,
      logger,
      // Read when each message is rendered, so the first answer of a sandbox labels its own message.
      get sandbox() {
        return label.on;
      },
      now,
      // On PostgreSQL counted in the store, shared by every instance (here while it does not answer). SQLite is one
      // instance's, and its writes wait for the disk on the event loop: counted here.
      limits: createUserLimits({
        perMinute: { reads: config.readsPerUserPerMinute, changes: config.changesPerUserPerMinute },
        perHour: { workflow_requests: config.workflows.requestsPerHour, workflow_calls: config.workflows.callsPerHour },
        rates: store.dialect === 'postgres' ? watchedStore.rates : undefined,
        now,
        logger: logger.child({ component: 'limits' }),
      }),
      onRequestEnded: ops.requestEnded,
      // SLACK_TEAM_ID, or the bot token's workspace once auth.test names it; and VS_ALLOWED_TEAMS.
      workspaces: servedWorkspaces(config.slack, authorization),
      tracing,
      agentTokens,
      watches,
    };
    const slack = createSlackApp({
      config,
      receiver,
      authorization,
      boltLogger,
      clientOptions,
      inFlight,
      context,
      logger,
      instrument: ops.instrument,
    });

    let stopped = false;
    /** Aborted by stop(): ends start-up's wait for the store. */
    const stopping = new AbortController();
    let opsServer: OpsServer | undefined;
    let metricsServer: OpsServer | undefined;
    let mcpServer: OpsServer | undefined;
    let listening = false;
    const stillStarting = () => {
      if (stopped) throw new StoppedWhileStarting();
    };
    const stopEverything = async (graceMs?: number) => {
      const wasReady = ops.readiness.phase === 'ready';
      // /readyz turns 503 first, so that a load balancer stops sending; then in-flight work finishes.
      ops.readiness.markStopping();
      stopping.abort();
      if (wasReady && config.ops.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.ops.shutdownDelayMs));
      if (listening) await slack.stop(graceMs);
      await opsServer?.close();
      await metricsServer?.close();
      await mcpServer?.close();
      await stopAll(lifecycles, logger);
    };
    const bot: Bot = {
      config,
      logger,
      cloud,
      names,
      store,
      policy,
      changes,
      follower,
      watchPoll,
      slack,
      sandbox,
      ops,
      async start(port) {
        try {
          for (const part of lifecycles) await part.start?.();
          // VS_METRICS_PORT: /metrics on a server of its own, which a deployment keeps off the public port.
          if (config.metricsPort !== null) metricsServer = await serveOpsRoutes(ops.metricsRoutes(), config.metricsPort);
          if (mcp && config.agents.port !== null)
            mcpServer = await serveOpsRoutes([{ path: MCP_PATH, method: ['POST', 'GET', 'DELETE'], handler: mcp }], config.agents.port);
          // Listening first, so that health checks answer while the store is waited for.
          let bound: { port: number | null } = { port: null };
          if (socketMode) opsServer = await serveOpsRoutes(routes, port ?? config.slack.port);
          else {
            bound = await slack.start(local?.listen ?? port);
            listening = true;
          }
          stillStarting();
          if (deferred) {
            const opened = await openStoreWhenReachable({
              open: () => openStore(config, logger),
              logger: logger.child({ component: 'store' }),
              signal: stopping.signal,
              onUnreachable: () => ops.readiness.setStore('unreachable'),
              ...overrides.storeWait,
            });
            stillStarting();
            deferred.open(opened!);
            ops.readiness.setStore('ok');
          }
          ops.start();
          if (socketMode) {
            // The socket last: Slack delivers over it as soon as it is open.
            listening = true;
            await slack.start();
            stillStarting();
          }
          // Local mode: the stand-in unfurls links to the panel (the sandbox's), and its page names the servers they may link to.
          if (local && bound.port !== null) local.connect(bound.port, { panel: { url: panelUrl, servers: sandbox?.serverIds() ?? [] }, sandbox });
          ops.readiness.markReady();
          return bound;
        } catch (error) {
          if (error instanceof StoppedWhileStarting || stopped) throw new StoppedWhileStarting();
          // Close what was started (the listener, the parts), as stop() would; the caller reports the error.
          stopped = true;
          await stopEverything(0);
          throw error;
        }
      },
      async stop(graceMs) {
        if (stopped) return;
        stopped = true;
        await stopEverything(graceMs);
      },
    };
    return bot;
  } catch (error) {
    // A part failed to build (port in use, unwritable VS_DB_PATH): close what was built.
    await stopAll(lifecycles, logger);
    throw error;
  }
}

async function stopAll(lifecycles: Lifecycle[], logger: Logger): Promise<void> {
  for (const part of [...lifecycles].reverse()) {
    try {
      await part.stop();
    } catch (error) {
      logger.warn('error while stopping a part', { part: part.name, error });
    }
  }
}
