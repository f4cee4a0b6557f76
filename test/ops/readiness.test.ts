import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { createMetrics, observeChange, observeCloudRequest, observeCommand } from '../../src/ops/metrics';
import { createReadiness, opsRoutes } from '../../src/ops/readiness';
import { watchStore } from '../../src/ops/store-watch';
import { StoreUnavailableError } from '../../src/store';
import { openSqliteStore } from '../../src/store/sqlite';

// /healthz, /readyz and /metrics as a load balancer and Prometheus read them.

let server: Server;
let base: string;
const metrics = createMetrics();
const readiness = createReadiness(metrics);

beforeAll(async () => {
  const routes = opsRoutes(readiness, metrics, { mode: 'http', sandbox: () => false });
  server = createServer((req, res) => {
    const route = routes.find((r) => r.path === req.url && r.method.includes(req.method ?? ''));
    if (route) route.handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function get(path: string) {
  const res = await request(base + path);
  return { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() };
}

test('/readyz: 503 while starting, 200 naming the store once ready, 200 with the store unreachable, 503 once stopping; /healthz 200 throughout', async () => {
  expect((await get('/readyz')).status).toBe(503);
  expect(JSON.parse((await get('/readyz')).text)).toEqual({ status: 'starting', store: 'ok' });
  readiness.markReady();
  expect(await get('/readyz')).toMatchObject({ status: 200 });
  expect(JSON.parse((await get('/readyz')).text)).toEqual({ status: 'ready', store: 'ok' });
  readiness.setStore('unreachable');
  expect(await get('/readyz')).toMatchObject({ status: 200 });
  expect(JSON.parse((await get('/readyz')).text)).toEqual({ status: 'ready', store: 'unreachable' });
  expect((await get('/metrics')).text).toMatch(/^vs_chatops_store_up 0$/m);
  readiness.setStore('ok');
  expect((await get('/metrics')).text).toMatch(/^vs_chatops_store_up 1$/m);
  readiness.markStopping();
  expect((await get('/readyz')).status).toBe(503);
  expect(JSON.parse((await get('/readyz')).text)).toMatchObject({ status: 'stopping' });
  expect((await get('/metrics')).text).toMatch(/^vs_chatops_ready 0$/m);
  expect((await get('/healthz')).status).toBe(200);
});

test('/metrics: Prometheus text with the product metrics and the process defaults; labels carry no user, channel or target', async () => {
  observeCommand(metrics)('firewall', 'ok');
  observeChange(metrics)({ action: 'disk_add', outcome: 'done' });
  observeChange(metrics)({ action: 'disk_add', outcome: 'started' });
  observeCloudRequest(metrics)('listFirewallRules', '200', 0.012);
  metrics.ackSeconds.observe({ kind: 'command' }, 0.003);
  const m = await get('/metrics');
  expect(m.status).toBe(200);
  expect(m.type).toContain('text/plain');
  expect(m.text).toContain('vs_chatops_commands_total{command="firewall",outcome="ok"} 1');
  expect(m.text).toContain('vs_chatops_changes_total{action="disk_add",outcome="done"} 1');
  expect(m.text).not.toContain('outcome="started"');
  expect(m.text).toContain('vs_chatops_cloud_requests_total{operation="listFirewallRules",status="200"} 1');
  expect(m.text).toContain('vs_chatops_cloud_request_seconds_bucket{le="0.025",operation="listFirewallRules"} 1');
  expect(m.text).toContain('vs_chatops_ack_seconds_count{kind="command"} 1');
  expect(m.text).toContain('process_cpu_seconds_total');
  expect(m.text).toContain('nodejs_eventloop_lag_seconds');
  const labelNames = new Set([...m.text.matchAll(/[{,]([a-z_]+)="/g)].map((x) => x[1]));
  for (const forbidden of ['user', 'user_id', 'channel', 'target', 'token']) expect(labelNames).not.toContain(forbidden);
});

test('a watched store reports unreachable on StoreUnavailableError and ok on the next answer; other errors say nothing', async () => {
  const seen: string[] = [];
  let down = true;
  const store = {
    ping: () =>
      down ? Promise.reject(Object.assign(new Error('The store cannot reach the PostgreSQL database'), { code: 'STORE_UNAVAILABLE' })) : Promise.resolve(),
    broken: () => Promise.reject(new Error('a bug')),
  };
  const watched = watchStore(store, (state) => seen.push(state));
  await expect(watched.ping()).rejects.toThrow('cannot reach');
  await expect(watched.broken()).rejects.toThrow('a bug');
  down = false;
  await watched.ping();
  expect(seen).toEqual(['unreachable', 'ok']);
});

test('a watched store reports what the methods of its slices answer, on the real store: ok, unreachable while its file is locked, ok again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vs-watch-'));
  const seen: string[] = [];
  const store = openSqliteStore(join(dir, 'store.sqlite'), { busyTimeoutMs: 50 });
  const other = new Database(join(dir, 'store.sqlite'));
  try {
    const watched = watchStore(store, (state) => seen.push(state));
    expect(watched.dialect).toBe('sqlite');
    expect(watched.audit).toBe(watched.audit);
    expect(await watched.audit.latest(1)).toEqual([]);
    other.exec('BEGIN EXCLUSIVE');
    await expect(watched.claims.claim('V1', '2024-05-01T10:00:00.000Z')).rejects.toBeInstanceOf(StoreUnavailableError);
    other.exec('COMMIT');
    expect(await watched.outbox.backlog()).toEqual({ pending: 0, oldestAt: null });
    expect(seen).toEqual(['ok', 'unreachable', 'ok']);
  } finally {
    other.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
