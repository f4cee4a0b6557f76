import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { composeBot, type Bot } from '../../src/compose';
import { loadConfig, secretValues } from '../../src/config';
import { createLogger } from '../../src/log';
import { startSandbox, type Sandbox } from '@vs-chatops/cloud-sandbox';
import type { Store } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';
import { CHANNEL, goodDisk, sleep, visibleText, type View } from '../helpers/drive';
import { waitFor } from '../helpers/wait';
import { slashCommandFields, viewSubmission } from '../helpers/payloads';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';
import { startSocketModeServer, type SocketModeServer } from '../helpers/socket-mode-server';
import { freePort } from '../helpers/spawned-bot';
import { READS } from '../../src/cloud/reads';

// The bot in Socket Mode (SLACK_APP_TOKEN set), end to end on loopback: the
// Slack fake hands out a ws:// URL from apps.connections.open, a `ws` server
// there says hello and pushes envelopes the way Slack does, and the bot acks
// them over the socket and answers through response_urls and the Web API.

const BOT_TOKEN = 'xoxb-socket-mode-bot-token-0123456789';
const APP_TOKEN = 'xapp-1-A1-socket-mode-app-token-0123456789';
const API_KEY = 'socket-mode-cloud-api-key-0123456789';
// The connection URL's ticket is a capability: whoever holds it can take the bot's socket.
const TICKET = 'socket-ticket-0123456789abcdef';

describe('the bot in Socket Mode', () => {
  let dir: string;
  let slack: SlackFake;
  let link: SocketModeServer;
  let sandbox: Sandbox;
  let store: Store;
  let app: Bot;
  let port: number;
  let mcpPort: number;
  let stopped = false;
  const logs: string[] = [];
  let openedMetadata = '';
  /** Claims of these delivery keys wait until the test lets them through (the store slow to note a first delivery). */
  const heldClaims = new Map<string, Promise<void>>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vs-socket-mode-'));
    slack = await startSlackFake();
    link = await startSocketModeServer();
    slack.on('apps.connections.open', () => ({ body: { ok: true, url: `${link.url}?ticket=${TICKET}&app_id=A1` } }));
    sandbox = await startSandbox({ reads: READS, port: 0, apiKey: API_KEY });
    port = await freePort();
    mcpPort = await freePort();
    const config = loadConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_APP_TOKEN: APP_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      PORT: String(port),
      VS_API_URL: sandbox.url,
      VS_ACCOUNT_ID: sandbox.accountId,
      VS_API_KEY: sandbox.apiKey,
      VS_DB_PATH: join(dir, 'audit.sqlite'),
      VS_OPERATORS: 'UOPER',
      VS_API_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'debug',
      VS_MCP: 'on',
      VS_MCP_PORT: String(mcpPort),
      VS_AGENT_CHANNEL: 'CAGENTS',
    });
    const logger = createLogger({ level: config.logLevel, secrets: secretValues(config), write: (l) => logs.push(l) });
    // The test opens the store so that it can read it after the bot has stopped.
    store = openSqliteStore(config.dbPath);
    const claims: Store['claims'] = {
      ...store.claims,
      claim: async (key, at) => {
        const held = heldClaims.get(key);
        heldClaims.delete(key);
        await held;
        return store.claims.claim(key, at);
      },
    };
    app = await composeBot(config, { logger, store: { ...store, claims }, cloudDeps: { retry: { baseDelayMs: 5 } } });
    // Resolves once the socket is open and Slack's hello arrived.
    await expect(app.start()).resolves.toEqual({ port: null });
  });

  afterAll(async () => {
    if (!stopped) await app?.stop(2000);
    await store?.close();
    await sandbox?.close();
    await link?.close();
    await slack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('it opens the socket with the app-level token (xapp-), never the bot token', () => {
    const opens = slack.callsTo('apps.connections.open');
    expect(opens).toHaveLength(1);
    expect(opens[0]!.token).toBe(APP_TOKEN);
    expect(link.connections()).toBe(1);
  });

  test('/vs firewall 42 over the socket is acked at once and the firewall summary reaches the response_url', async () => {
    sandbox.setDelay(300);
    const responseUrl = slack.responseUrl('socket-firewall');
    const envelopeId = link.send({
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: slashCommandFields({ text: 'firewall 42', responseUrl, triggerId: 'trigger.socket.1' }),
    });
    const ack = await link.waitForAck(envelopeId, 2000);
    // Acked before the slow cloud answered: Slack's 3-second limit is never at risk.
    expect(slack.responses.some((r) => r.id === 'socket-firewall')).toBe(false);
    expect(ack.envelope_id).toBe(envelopeId);

    const [post] = await slack.waitForResponses(1, 5000);
    expect(post!.id).toBe('socket-firewall');
    expect(post!.body.response_type).toBe('in_channel');
    const text = visibleText(post!.body);
    expect(text).toContain('VS 42');
    expect(text).toContain('443');
    expect(text).toMatch(/ACCEPT/);
    expect(sandbox.requests.map((r) => `${r.method} ${r.path}`)).toContain('GET /virtual_machines/42/firewall_rules.json');
    sandbox.setDelay(0);
  });

  test('/healthz answers on PORT in Socket Mode and says so', async () => {
    const res = await request(`http://127.0.0.1:${port}/healthz`);
    expect(res.statusCode).toBe(200);
    // The loopback sandbox has answered /vs firewall 42 above, and said what it is.
    expect(await res.body.json()).toEqual({ status: 'ok', mode: 'socket', sandbox: true });
  });

  test('the MCP endpoint answers on VS_MCP_PORT (Socket Mode has no other HTTP port for it), with its own checks', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const res = await request(`http://127.0.0.1:${mcpPort}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    await res.body.dump();
    const onPort = await request(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(onPort.statusCode).toBe(404);
    await onPort.body.dump();
  });

  test('/readyz and /metrics answer on PORT in Socket Mode too', async () => {
    const ready = await request(`http://127.0.0.1:${port}/readyz`);
    expect(ready.statusCode).toBe(200);
    expect(await ready.body.json()).toEqual({ status: 'ready', store: 'ok' });
    const metrics = await request(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('# TYPE vs_chatops_ack_seconds histogram');
  });

  test('a slash command Slack redelivers (retry_attempt) after the bot saw it is acked and not run again', async () => {
    const payload = slashCommandFields({
      text: 'firewall 43',
      user: 'UOPER',
      responseUrl: slack.responseUrl('socket-retried'),
      triggerId: 'trigger.socket.retried',
    });
    await link.waitForAck(link.send({ type: 'slash_commands', accepts_response_payload: true, payload }), 2000);
    await waitFor('the answer to the first delivery', () => slack.responses.some((r) => r.id === 'socket-retried'), { within: 5000 });
    const retry = link.send({ type: 'slash_commands', accepts_response_payload: true, payload, retry_attempt: 1, retry_reason: 'timeout' });
    await link.waitForAck(retry, 2000);
    await waitFor('the retry to be logged as a repeat', () => logs.some((l) => l.includes('Slack retried a delivery that already arrived')), { within: 3000 });
    await sleep(300);
    expect(slack.responses.filter((r) => r.id === 'socket-retried')).toHaveLength(1);
  });

  test('a retry that arrives before the first delivery is noted: both are acked at once, and the command is handled once', async () => {
    const triggerId = 'trigger.socket.race';
    let release!: () => void;
    heldClaims.set(`delivery:trigger:${triggerId}`, new Promise<void>((resolve) => (release = resolve)));
    const payload = slashCommandFields({ text: 'firewall 44', user: 'UOPER', responseUrl: slack.responseUrl('socket-race'), triggerId });
    const answered = () => slack.responses.filter((r) => r.id === 'socket-race');
    const first = link.send({ type: 'slash_commands', accepts_response_payload: true, payload });
    const retry = link.send({ type: 'slash_commands', accepts_response_payload: true, payload, retry_attempt: 1, retry_reason: 'timeout' });
    // The first delivery's id is not in the store yet, and each is acked all the same.
    await Promise.all([link.waitForAck(first, 2000), link.waitForAck(retry, 2000)]);
    // The retry claimed it first and is handled; the first waits for its own claim's answer before doing anything.
    await waitFor('one answer', () => answered().length === 1, { within: 5000 });
    release();
    await waitFor('the first delivery to step aside', () => logs.some((l) => l.includes('the other delivery came first; not handled again')), { within: 3000 });
    expect(answered()).toHaveLength(1);
    expect(sandbox.requests.filter((r) => r.path.startsWith('/virtual_machines/44/firewall_rules'))).toHaveLength(1);
  });

  test('an operator adds a disk over the socket: the form opens, the submission is acked with "Done" on the socket, and the disk is created', async () => {
    const triggerId = 'trigger.socket.disk';
    const commandEnvelope = link.send({
      type: 'slash_commands',
      accepts_response_payload: true,
      payload: slashCommandFields({ text: 'disk add 42', user: 'UOPER', responseUrl: slack.responseUrl('socket-disk'), triggerId }),
    });
    await link.waitForAck(commandEnvelope, 2000);
    const opened = await slack.waitForCalls('views.open', 1, 5000);
    const call = opened.find((c) => c.args.trigger_id === triggerId);
    expect(call?.token).toBe(BOT_TOKEN);
    const view = call!.args.view as View;
    expect(view.callback_id).toBe('disk_add');
    openedMetadata = view.private_metadata;

    const before = sandbox.requests.filter((r) => r.method === 'POST').length;
    const submission = link.send({
      type: 'interactive',
      accepts_response_payload: true,
      payload: viewSubmission({ callbackId: 'disk_add', viewId: 'VSOCKET1', user: 'UOPER', privateMetadata: view.private_metadata, fields: goodDisk }),
    });
    const ack = await link.waitForAck(submission, 5000);
    expect(ack.payload).toMatchObject({ response_action: 'update' });
    expect(visibleText(ack.payload)).toMatch(/Scheduled/);
    const posts = sandbox.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(before + 1);
    expect(posts[posts.length - 1]!.path).toMatch(/\/virtual_machines\/42\/disks/);
    const [record] = await store.audit.latest(1);
    expect(record).toMatchObject({ userId: 'UOPER', action: 'disk_add', target: 'vs:42', outcome: 'scheduled' });
  });

  test('a command over the socket whose response_url names another host runs, but nothing is posted there, and no log line holds the URL', async () => {
    const posts: string[] = [];
    const elsewhere = createServer((req, res) => {
      posts.push(req.url ?? '');
      req.resume();
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', () => resolve()));
    try {
      const host = `127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
      const payload = slashCommandFields({
        text: 'firewall 45',
        responseUrl: `http://${host}/commands/T1/3/someone-elses`,
        triggerId: 'trigger.socket.elsewhere',
      });
      await link.waitForAck(link.send({ type: 'slash_commands', accepts_response_payload: true, payload }), 2000);
      await app.slack.settled();
      expect(sandbox.requests.map((r) => r.path)).toContain('/virtual_machines/45/firewall_rules.json');
      expect(posts).toEqual([]);
      expect(logs.join('\n')).toContain("dropped the request's response_url: it is not Slack's");
      expect(logs.filter((line) => line.includes(host))).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  test('at LOG_LEVEL=debug, no log line carries a capability: the socket ticket, a response_url, a trigger_id, a private_metadata', () => {
    expect(logs.some((l) => l.includes('"level":"debug"') && l.includes('Received a message on the WebSocket'))).toBe(true);
    const all = logs.join('\n');
    expect(openedMetadata).toContain('vsId');
    for (const capability of [
      TICKET,
      slack.responseUrl('socket-firewall'),
      slack.responseUrl('socket-disk'),
      'trigger.socket.1',
      'trigger.socket.disk',
      openedMetadata,
      JSON.stringify(openedMetadata).slice(1, -1),
    ]) {
      expect(all).not.toContain(capability);
    }
  });

  test('stopping while a disk form is applied: the "Done" ack still reaches Slack over the socket, then socket and health port close for good', async () => {
    const opensBefore = slack.callsTo('apps.connections.open').length;
    const [record] = await store.audit.latest(1);
    sandbox.setDelay(500);
    const posts = () => sandbox.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    const submission = link.send({
      type: 'interactive',
      accepts_response_payload: true,
      payload: viewSubmission({
        callbackId: 'disk_add',
        viewId: 'VSOCKET2',
        user: 'UOPER',
        privateMetadata: JSON.stringify({ channelId: CHANNEL, vsId: 43 }),
        fields: goodDisk,
      }),
    });
    // The change has reached the cloud, which is still answering, when the bot is told to stop.
    await waitFor('another post', () => posts() > before, { within: 2000 });
    await app.stop(3000);
    stopped = true;

    const ack = await link.waitForAck(submission, 1000);
    expect(visibleText(ack.payload)).toMatch(/Scheduled/);
    expect((await store.audit.latest(1))[0]).toMatchObject({ action: 'disk_add', target: 'vs:43', outcome: 'scheduled' });
    expect((await store.audit.latest(1))[0]!.id).not.toBe(record!.id);

    await sleep(200);
    expect(link.openConnections()).toBe(0);
    await expect(request(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    expect(slack.callsTo('apps.connections.open')).toHaveLength(opensBefore);
    expect(link.connections()).toBe(1);
  });
});
