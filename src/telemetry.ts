import { context, DiagLogLevel, diag, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation, type UndiciRequest } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { secretValues, type Config } from './config';
import { CAPABILITY_KEY, createLogger, maskUrlPasswords, redactCapabilities, REDACTED, SECRET_KEY } from './log';
import { errorType, NO_SPAN, type SpanAttributes, type SpanOptions, type TraceSpan, type Tracing } from './tracing';

// OpenTelemetry, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (the composition root imports this module on
// demand; docs/production.md, Traces), behind the port of src/tracing.ts. The SDK is the environment-free one (@opentelemetry/sdk-trace: every setting passed
// here, from config.ts), spans leave in batches over OTLP/HTTP (protobuf or JSON), and undici's instrumentation makes
// a child span of every HTTP call inside a trace: the cloud API (undici's Pool), Slack's Web API (fetch, which Node
// builds on undici) and response_urls (undici). Before a span is exported:
// - the URL of any call to Slack other than its Web API (a response_url, a file upload URL) loses its path and query:
//   both are capabilities; the query of any other URL loses the values of keys that name a secret;
// - an error's message and stack (which may quote input) and a status message are dropped: its type stays;
// - known secret values, URL passwords and capabilities written in text are masked in every string, as in logs.
// No propagation header is sent: Slack and the cloud API are not told our trace ids.

export type TelemetrySettings = NonNullable<Config['telemetry']>;

type ExporterOptions = NonNullable<ConstructorParameters<typeof ProtobufTraceExporter>[0]>;

const SLACK_API_URL = 'https://slack.com/api/';
/** Strings kept scrubbed (bounded: ids and URLs vary). */
const SCRUBBED_KEPT = 4096;
/** How often a failing export is told in the log at most. */
const PROBLEM_EVERY_MS = 60_000;

/** Starts traces as config.telemetry says (OTEL_EXPORTER_OTLP_ENDPOINT set); stopped by shutdown(). */
export function startTelemetry(config: Config & { telemetry: TelemetrySettings }): Tracing {
  const settings = config.telemetry;
  // The values the logger masks are masked in every span too.
  const secrets = secretValues(config);
  const log = createLogger({ level: config.logLevel, secrets }, { component: 'traces' });
  reportProblemsTo(log);
  const scrub = scrubber(secrets);
  const exporterOptions: ExporterOptions = {
    url: settings.tracesUrl,
    headers: { ...settings.headers },
    timeoutMillis: settings.timeoutMs,
    // The SDK's enum has these two values, spelt as the setting is.
    compression: settings.compression as ExporterOptions['compression'],
    httpAgentOptions: { keepAlive: true },
  };
  const exporter = settings.protocol === 'http/json' ? new JsonTraceExporter(exporterOptions) : new ProtobufTraceExporter(exporterOptions);
  const provider = new TracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler: samplerOf(settings.sampler),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: scrubbing(exporter, scrub),
        scheduledDelayMillis: settings.batch.scheduledDelayMs,
        maxQueueSize: settings.batch.maxQueueSize,
        maxExportBatchSize: settings.batch.maxExportBatchSize,
        exportTimeoutMillis: settings.batch.exportTimeoutMs,
      }),
    ],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  // A second bot in the same process (tests) keeps the first one's: it propagates the same way.
  const ownsContext = context.setGlobalContextManager(contextManager);
  const tracer = provider.getTracer('vs-chatops');

  const calls = callKinds(config.slack.apiUrl ?? SLACK_API_URL);
  const undici = new UndiciInstrumentation({
    // Only inside a trace: the outbox's and the sweeps' calls are no trace of their own.
    ignoreRequestHook: () => !trace.getSpan(context.active())?.isRecording(),
    startSpanHook: (request) => urlAttributes(request, calls.of(request)),
    requestHook: (span, request) => span.updateName(callName(request, calls.of(request))),
  });
  const stopInstrumentations = registerInstrumentations({ instrumentations: [undici], tracerProvider: provider });

  const handle = (span: Span): TraceSpan => ({
    set: (attributes) => span.setAttributes(defined(attributes)),
    rename: (name) => span.updateName(name),
    failed: (error) => markFailed(span, error),
  });
  const inSpan = <T>(span: Span, parent: typeof ROOT_CONTEXT, run: (span: TraceSpan) => Promise<T>): Promise<T> => {
    let running: Promise<T>;
    try {
      running = context.with(trace.setSpan(parent, span), run, undefined, handle(span));
    } catch (error) {
      markFailed(span, error);
      span.end();
      throw error;
    }
    return running.then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        markFailed(span, error);
        span.end();
        throw error;
      },
    );
  };
  const spanKind = (options: SpanOptions) => (options.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL);

  return {
    on: true,
    root(name, options, run) {
      const span = tracer.startSpan(name, { root: true, kind: spanKind(options), attributes: defined(options.attributes) }, ROOT_CONTEXT);
      return inSpan(span, ROOT_CONTEXT, run);
    },
    child(name, options, run) {
      const parent = context.active();
      if (!trace.getSpan(parent)?.isRecording()) return run(NO_SPAN);
      const span = tracer.startSpan(name, { kind: spanKind(options), attributes: defined(options.attributes) }, parent);
      return inSpan(span, parent, run);
    },
    logFields() {
      const span = trace.getSpan(context.active());
      if (!span?.isRecording()) return {};
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
    async shutdown() {
      stopInstrumentations();
      await provider.shutdown();
      if (ownsContext) context.disable();
      diag.disable();
    },
  };
}

function samplerOf({ name, ratio }: TelemetrySettings['sampler']): Sampler {
  const root = name.endsWith('always_on') ? new AlwaysOnSampler() : name.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

function markFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  if (error !== undefined) span.setAttribute('error.type', errorType(error));
}

function defined(attributes: SpanAttributes | undefined): Attributes {
  const out: Attributes = {};
  if (attributes) for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value;
  return out;
}

// --- The URLs of HTTP calls ---------------------------------------------------------------------------------------

/** Slack's hosts: any path on them other than the Web API's is a capability (a response_url, a file upload URL). */
const SLACK_HOST = /(^|\.)slack(-gov)?\.com$/;

type CallKind = { peer: 'slack_api'; method: string } | { peer: 'slack_capability' } | { peer: 'other' };

/** What each HTTP call is, worked out once per call (both hooks of the instrumentation ask). */
function callKinds(slackApiUrl: string): { of(request: UndiciRequest): CallKind } {
  const slackOrigin = new URL(slackApiUrl).origin;
  const known = new WeakMap<UndiciRequest, CallKind>();
  const kindOf = (request: UndiciRequest): CallKind => {
    const url = `${request.origin}${request.path}`;
    if (url.startsWith(slackApiUrl)) return { peer: 'slack_api', method: url.slice(slackApiUrl.length).split(/[?#]/)[0] ?? '' };
    if (request.origin === slackOrigin || SLACK_HOST.test(hostOf(request.origin))) return { peer: 'slack_capability' };
    return OTHER;
  };
  return {
    of(request) {
      let kind = known.get(request);
      if (kind === undefined) {
        kind = kindOf(request);
        known.set(request, kind);
      }
      return kind;
    },
  };
}
const OTHER: CallKind = { peer: 'other' };

/** url.full, url.path and url.query as a span may hold them (they replace the instrumentation's). */
function urlAttributes(request: UndiciRequest, kind: CallKind): Attributes {
  if (kind.peer === 'slack_capability') {
    return { 'url.full': `${request.origin}/${REDACTED}`, 'url.path': `/${REDACTED}`, 'url.query': '' };
  }
  const at = request.path.search(/[?#]/);
  const path = at < 0 ? request.path : request.path.slice(0, at);
  const query = at < 0 ? '' : redactedQuery(request.path.slice(at).split('#')[0] ?? '');
  return {
    'url.full': `${request.origin}${path}${query}`,
    'url.path': path,
    'url.query': query,
    ...(kind.peer === 'slack_api' ? { 'slack.method': kind.method } : {}),
  };
}

/** `slack chat.postMessage`, `slack response_url`, or the instrumentation's (the method) for the cloud API and others. */
function callName(request: UndiciRequest, kind: CallKind): string {
  if (kind.peer === 'slack_api') return `slack ${kind.method}`;
  if (kind.peer === 'slack_capability') return hostOf(request.origin).startsWith('files.') ? 'slack file upload' : 'slack response_url';
  return request.method;
}

/** `https://hooks.slack.com:443` → `hooks.slack.com` (an origin is scheme://host[:port]). */
function hostOf(origin: string): string {
  const host = origin.slice(origin.indexOf('//') + 2);
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

/** `?a=1&token=x` → `?a=1&token=[REDACTED]`: values of keys that name a secret or a capability. */
function redactedQuery(query: string): string {
  if (query === '' || query === '?') return '';
  return (
    '?' +
    query
      .slice(1)
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        const key = decodeURIComponentSafe(at < 0 ? pair : pair.slice(0, at));
        return at >= 0 && (SECRET_KEY.test(key) || CAPABILITY_KEY.test(key) || /ticket|signature/i.test(key)) ? `${pair.slice(0, at)}=${REDACTED}` : pair;
      })
      .join('&')
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// --- What leaves ---------------------------------------------------------------------------------------------------

/** Masks known secret values, URL passwords and capabilities in a string, as the logger does in a line. */
function scrubber(secrets: readonly string[]): (text: string) => string {
  const masked = [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  const scrub = (text: string) => {
    let out = text;
    for (const secret of masked) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return redactCapabilities(maskUrlPasswords(out));
  };
  // The same few values come on every span (methods, hosts, ids, the user agent): each scrubbed once.
  const seen = new Map<string, string>();
  return (text) => {
    let out = seen.get(text);
    if (out === undefined) {
      out = scrub(text);
      if (seen.size >= SCRUBBED_KEPT) seen.clear();
      seen.set(text, out);
    }
    return out;
  };
}

/** An exporter that sends each span scrubbed (a new view of it where anything changed; the span itself is left as it is). */
function scrubbing(exporter: SpanExporter, scrub: (text: string) => string): SpanExporter {
  return {
    export: (spans, done) =>
      exporter.export(
        spans.map((span) => scrubbedSpan(span, scrub)),
        done,
      ),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function scrubbedSpan(span: ReadableSpan, scrub: (text: string) => string): ReadableSpan {
  const attributes = scrubbedAttributes(span.attributes, scrub);
  // An exception keeps its type: its message and stack may quote a request, a URL or a reason.
  const events = span.events.map((event) =>
    event.attributes === undefined
      ? event
      : {
          ...event,
          attributes: scrubbedAttributes(
            Object.fromEntries(Object.entries(event.attributes).filter(([key]) => key !== 'exception.message' && key !== 'exception.stacktrace')),
            scrub,
          ),
        },
  );
  const status = span.status.message === undefined ? span.status : { code: span.status.code };
  const name = scrub(span.name);
  const changed = attributes !== span.attributes || events.some((event, i) => event !== span.events[i]) || status !== span.status || name !== span.name;
  if (!changed) return span;
  return Object.create(span, {
    attributes: { value: attributes },
    events: { value: events },
    status: { value: status },
    name: { value: name },
  }) as ReadableSpan;
}

function scrubbedAttributes(attributes: Attributes, scrub: (text: string) => string): Attributes {
  let out: Attributes | undefined;
  for (const [key, value] of Object.entries(attributes)) {
    const clean = typeof value === 'string' ? scrub(value) : Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? scrub(v) : v)) : value;
    const same = Array.isArray(value) ? (clean as unknown[]).every((v, i) => v === value[i]) : clean === value;
    if (!same) (out ??= { ...attributes })[key] = clean as Attributes[string];
  }
  return out ?? attributes;
}

// --- Problems of the SDK -------------------------------------------------------------------------------------------

/** What the SDK said, briefly: its message and code (an export's error comes as the JSON of the error). */
function problemOf(message: string, args: unknown[]): { problem: string; code?: string } {
  const error = args.find((arg): arg is Error => arg instanceof Error);
  if (error) return { problem: `${message} ${error.message}`.trim(), ...codeOf(error as { code?: unknown }) };
  if (message.startsWith('{')) {
    try {
      const parsed = JSON.parse(message) as { message?: unknown; code?: unknown };
      if (typeof parsed.message === 'string') return { problem: parsed.message, ...codeOf(parsed) };
    } catch {
      // Not JSON after all: said as it is.
    }
  }
  return { problem: message };
}

function codeOf(error: { code?: unknown }): { code?: string } {
  return typeof error.code === 'string' ? { code: error.code } : {};
}

/** The SDK's warnings and errors (an export refused or unreachable) into our log, masked like any line, once a minute at most. */
function reportProblemsTo(log: ReturnType<typeof createLogger>): void {
  let lastMs = -Infinity;
  let unsaid = 0;
  const say = (message: string, ...args: unknown[]) => {
    const nowMs = Date.now();
    if (nowMs - lastMs < PROBLEM_EVERY_MS) {
      unsaid += 1;
      return;
    }
    lastMs = nowMs;
    log.warn('traces: the OpenTelemetry SDK reports a problem (spans may be lost)', {
      ...problemOf(message, args),
      ...(unsaid > 0 ? { alsoSince: unsaid } : {}),
    });
    unsaid = 0;
  };
  const quiet = () => undefined;
  diag.setLogger({ error: say, warn: say, info: quiet, debug: quiet, verbose: quiet }, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
}
