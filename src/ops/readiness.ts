import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from './metrics';

// What /healthz, /readyz and /metrics answer. /readyz is 200 only between
// "started" and "stopping": a load balancer stops sending before the process
// exits. "starting" lasts while start-up waits for the store's database
// (src/compose.ts), which the body then names `unreachable`. Once started, a
// store outage does not make it 503 (every instance shares the database, and
// taking them all out would stop the reads that still work): it is named in
// the body and in vs_chatops_store_up instead.

export type Phase = 'starting' | 'ready' | 'stopping';
export type StoreState = 'ok' | 'unreachable';

export interface Readiness {
  readonly phase: Phase;
  readonly store: StoreState;
  /** Start-up is done (listening, store opened and migrated, Socket Mode connected). */
  markReady(): void;
  /** Shutdown began: /readyz answers 503 from now on. */
  markStopping(): void;
  /** What the store last did: answered (`ok`) or failed to (`unreachable`). Returns true when the state changed. */
  setStore(state: StoreState): boolean;
}

export function createReadiness(metrics?: Metrics): Readiness {
  let phase: Phase = 'starting';
  let store: StoreState = 'ok';
  metrics?.ready.set(0);
  metrics?.storeUp.set(1);
  return {
    get phase() {
      return phase;
    },
    get store() {
      return store;
    },
    markReady() {
      if (phase === 'starting') phase = 'ready';
      metrics?.ready.set(phase === 'ready' ? 1 : 0);
    },
    markStopping() {
      phase = 'stopping';
      metrics?.ready.set(0);
    },
    setStore(state) {
      metrics?.storeUp.set(state === 'ok' ? 1 : 0);
      if (state === store) return false;
      store = state;
      return true;
    },
  };
}

/** The shape of a Bolt custom route, without depending on Bolt here. */
export interface OpsRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface OpsRouteOptions {
  mode: 'http' | 'socket';
  /** Whether the cloud API is the built-in sandbox (read when asked: it can be learnt after start). */
  sandbox: () => boolean;
  /** /metrics is served on a port of its own (VS_METRICS_PORT), not among these routes. */
  metricsApart?: boolean;
}

/** GET /healthz and /readyz, and /metrics unless it is apart; served on PORT in HTTP and in Socket Mode. */
export function opsRoutes(readiness: Readiness, metrics: Metrics, options: OpsRouteOptions): OpsRoute[] {
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  return [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => json(res, 200, { status: 'ok', mode: options.mode, sandbox: options.sandbox() }),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) => {
        const status = readiness.phase === 'ready' ? 'ready' : readiness.phase;
        json(res, readiness.phase === 'ready' ? 200 : 503, { status, store: readiness.store });
      },
    },
    ...(options.metricsApart ? [] : [metricsRoute(metrics)]),
  ];
}

/** GET /metrics: Prometheus text of the registry (on PORT, or on VS_METRICS_PORT's server of its own). */
export function metricsRoute(metrics: Metrics): OpsRoute {
  return {
    path: '/metrics',
    method: ['GET'],
    handler: (_req, res) => {
      metrics.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
          res.end(text);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('metrics could not be collected\n');
        },
      );
    },
  };
}
