import type { LogFields } from './log';

// The port every part traces through (docs/production.md, Traces). Nothing
// here is OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT unset the bot runs on
// NO_TRACING and no module of @opentelemetry is loaded by ours; set, the
// composition root imports src/telemetry.ts (the SDK, its exporter and
// undici's instrumentation) on demand, which implements this port. A trace starts at `root` (a Slack request, a workflow step, a
// followed poll, an MCP call); `child` spans exist only inside one (a store
// call made by a timer is no trace of its own). Attributes are ids, names,
// outcomes and status codes: never a token, a body, a reason, a response_url
// or a person's address, whoever passes them.

/** What a span may carry: ids, names, outcomes, counts (undefined: left out). */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A span as our code sees it while its work runs. */
export interface TraceSpan {
  set(attributes: SpanAttributes): void;
  /** Names it anew, once what it is has been read (an MCP call's method and tool, from its body). */
  rename(name: string): void;
  /** Marks it failed, with the error's code or class name (`error.type`); never its message, which may quote input. */
  failed(error?: unknown): void;
}

export interface SpanOptions {
  attributes?: SpanAttributes;
  /** `server`: a request from outside (Slack's, an MCP call); `internal` (default): the bot's own work. */
  kind?: 'server' | 'internal';
}

export interface Tracing {
  /** False: NO_TRACING, and every call below costs nothing but the call. */
  readonly on: boolean;
  /**
   * Runs `run` as the root span of a new trace; the span ends when it settles (failed when it throws). A new way in
   * starts its traces here, as an MCP call will: `tracing.root(`mcp ${tool}`, { kind: 'server', attributes:
   * { 'vs.tool': tool, 'vs.agent': agentId } }, (span) => …)`, then `span.set({ 'vs.outcome': outcome })`.
   */
  root<T>(name: string, options: SpanOptions, run: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** Runs `run` as a child of the current span; without one, just runs it. */
  child<T>(name: string, options: SpanOptions, run: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** `trace_id` and `span_id` of the current span, for log lines; empty outside a trace. A new object each time (pino merges into it). */
  logFields(): LogFields;
  /** Sends what is still waiting, then stops. */
  shutdown(): Promise<void>;
}

export const NO_SPAN: TraceSpan = { set: () => undefined, rename: () => undefined, failed: () => undefined };

/** Traces off: nothing recorded, nothing loaded. */
export const NO_TRACING: Tracing = {
  on: false,
  root: (_name, _options, run) => run(NO_SPAN),
  child: (_name, _options, run) => run(NO_SPAN),
  logFields: () => ({}),
  shutdown: () => Promise.resolve(),
};

/** The name of an error as a span may carry it: its code, else its class name. */
export function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (error instanceof Error) return error.name;
  }
  return 'Error';
}

/**
 * The store as every caller sees it, each call a child span `store <slice>.<method>` (one call is one query or one
 * transaction). Only what the call is, never its arguments (a reason, a request body). Without a trace, a call is
 * made as it is.
 */
export function traceStore<S extends { readonly dialect: 'sqlite' | 'postgres' }>(store: S, tracing: Tracing): S {
  const system = store.dialect === 'postgres' ? 'postgresql' : 'sqlite';
  const traced = new WeakMap<object, object>();
  const wrap = <T extends object>(target: T, path: string): T => {
    const known = traced.get(target);
    if (known) return known as T;
    const proxy = new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        const name = typeof property === 'string' ? (path === '' ? property : `${path}.${property}`) : String(property);
        // A slice: traced too (the same proxy each time it is read).
        if (typeof value === 'object' && value !== null) return wrap(value, name);
        if (typeof value !== 'function' || property === 'close') return value;
        return (...args: unknown[]) => {
          // Every store method returns a promise (src/store/store.ts).
          const call = () => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          return tracing.child(`store ${name}`, { attributes: { 'db.system.name': system, 'db.operation.name': name } }, call);
        };
      },
    });
    traced.set(target, proxy);
    return proxy;
  };
  return wrap(store, '');
}
