import { createHash } from 'node:crypto';
import { Pool, type Dispatcher } from 'undici';
import type { Config } from '../config';
import { CodedError } from '../errors';
import { BudgetWaitTimeout, createBudget, type ConnectionBudget } from './budget';
import { CloudError, type CloudErrorInit, type CloudErrorKind } from './errors';

// One exchange with the cloud API: a connection from the request's budget
// (reads and changes each have their own, and their own Pool), Basic auth,
// the headers of docs/cloud-api.md, Conventions (the format suffix is in the caller's path), the call's deadline, a cap on the
// size of answers, and every low-level failure mapped to a CloudError. What
// an answer's status or body means is not decided here (retry.ts, codec.ts).
// The API key lives only in the Authorization header built here; every text
// that leaves (messages, causes) is scrubbed of it anyway.

export type HttpMethod = 'GET' | 'POST' | 'DELETE';
export type WireFormat = Config['cloud']['format'];
/** Which connection budget a request draws on. */
export type BudgetClass = 'read' | 'change';

export interface CloudRequest {
  method: HttpMethod;
  /** Path relative to the base URL, with its format suffix, e.g. `/virtual_machines/42/firewall_rules.json`. */
  path: string;
  body?: string;
  /** 2xx statuses this operation answers with; any other status is an error. */
  expectedStatuses: readonly number[];
  /** Default: GET reads, POST changes. */
  budget?: BudgetClass;
}

export interface CloudHttpResponse {
  status: number;
  /** The body as UTF-8 text: decoded when first asked for (an answer recognised by its digest never is). */
  readonly text: string;
  /**
   * The SHA-256 of the body's bytes (base64), computed when asked: a read that keeps its last answer
   * (ReadRow.keepsLast) knows an unchanged one by it without decoding its text. Absent from answers not from the wire.
   */
  sha256?(): string;
  /** The Retry-After header, when the API sent one. */
  retryAfter?: string;
  /** `GET /virtual_machines/42/firewall_rules.json`: for errors raised on this answer later. */
  request: string;
}

export type Fail = (kind: CloudErrorKind, message: string, init: CloudErrorInit) => CloudError;

export interface TransportOptions {
  /** Base URL of the API, e.g. `https://cloud.example.com` or `http://127.0.0.1:4000/api`. */
  baseUrl: string;
  accountId: string;
  apiKey: string;
  format: WireFormat;
  /** Deadline of one call from the moment it is sent, its retries included. */
  timeoutMs: number;
  /** Connections for reads, and connections kept for changes. */
  readConnections: number;
  changeConnections: number;
  /** How long a request may wait for a connection of its budget before it is refused unsent. */
  connectionWaitMs: number;
  maxBodyBytes: number;
  /** A dispatcher to use instead of our own Pools (tests: MockAgent). Not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** How a sandbox marks its answers, and what to do the first time one does. */
  sandbox?: SandboxMark;
}

/** The header a sandbox puts on every answer (the sandbox's own, packages/cloud-sandbox), and what to call the first time an answer bears it. */
export interface SandboxMark {
  readonly header: string;
  readonly noticed: () => void;
}

export interface Transport {
  /** Sends one attempt of `request` within `clock`; the clock's deadline starts when the first attempt gets its connection. */
  send(request: CloudRequest, clock: CallClock): Promise<CloudHttpResponse>;
  /** Makes every CloudError of the client, so none can carry a secret. */
  readonly fail: Fail;
  /** `GET /virtual_machines/42/firewall_rules.json` */
  label(request: CloudRequest): string;
  readonly budgets: Readonly<Record<BudgetClass, ConnectionBudget>>;
  close(): Promise<void>;
}

/** Error answers are read only this far: enough for any message, and a huge error page is not buffered. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
const CONTENT_TYPES: Record<WireFormat, string> = { json: 'application/json', xml: 'application/xml' };

/** Codes of failures before the request could reach the API. */
const CONNECT_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT']);
const TIMEOUT_ERROR_CODES: ReadonlySet<string> = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** The reason our deadline aborts a call with, told apart from any other abort. */
class DeadlinePassed extends CodedError {
  override readonly name = 'DeadlinePassed';
  readonly code = 'CLOUD_DEADLINE_PASSED';
}

/** The deadline of one call (its retries included): it starts when the call is first sent, not while it waits for a connection. */
export class CallClock {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private endsAt = Infinity;

  constructor(readonly timeoutMs: number) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts the deadline, once. */
  start(): void {
    if (this.timer !== undefined) return;
    this.endsAt = Date.now() + this.timeoutMs;
    this.timer = setTimeout(() => this.controller.abort(new DeadlinePassed('deadline passed')), this.timeoutMs);
  }

  /** Time left before the deadline; Infinity before the call was sent. */
  remainingMs(): number {
    return this.endsAt - Date.now();
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

export function createTransport(options: TransportOptions): Transport {
  const { timeoutMs, format, maxBodyBytes } = options;
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');
  const pool = (connections: number) =>
    new Pool(origin, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs },
    });
  const own = options.dispatcher === undefined ? { read: pool(options.readConnections), change: pool(options.changeConnections) } : undefined;
  const dispatchers: Record<BudgetClass, Dispatcher> = own ?? { read: options.dispatcher!, change: options.dispatcher! };
  const budgets = { read: createBudget(options.readConnections), change: createBudget(options.changeConnections) };

  const credentials = Buffer.from(`${options.accountId}:${options.apiKey}`).toString('base64');
  const secrets = [options.apiKey, credentials].filter((s) => s.length >= 4);
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join('[REDACTED]'), text);
  const headers = { authorization: `Basic ${credentials}`, accept: CONTENT_TYPES[format], 'content-type': CONTENT_TYPES[format] };
  const seconds = formatSeconds(timeoutMs);
  let sandboxNoticed = false;

  const fail: Fail = (kind, message, init) =>
    new CloudError(kind, redact(message), {
      ...init,
      messages: init.messages?.map(redact),
      fieldErrors: init.fieldErrors && Object.fromEntries(Object.entries(init.fieldErrors).map(([field, msgs]) => [field, msgs.map(redact)])),
      cause: init.cause === undefined ? undefined : scrubbedCause(init.cause, redact),
    });
  const label = (request: CloudRequest) => `${request.method} ${request.path}`;

  async function send(request: CloudRequest, clock: CallClock): Promise<CloudHttpResponse> {
    const budgetClass = request.budget ?? (request.method === 'GET' ? 'read' : 'change');
    const what = label(request);
    let release: () => void;
    try {
      release = await budgets[budgetClass].acquire(Math.min(options.connectionWaitMs, clock.remainingMs()));
    } catch (error) {
      if (!(error instanceof BudgetWaitTimeout)) throw error;
      const waited = formatSeconds(options.connectionWaitMs);
      throw fail(
        'no_connection',
        `no connection to the cloud API came free within ${waited} s (all ${budgets[budgetClass].size} for ${budgetClass}s are busy); the request was not sent`,
        { request: what },
      );
    }
    clock.start();
    let status: number | undefined;
    try {
      const response = await dispatchers[budgetClass].request({
        origin,
        path: `${basePath}${request.path}`,
        method: request.method,
        headers,
        body: request.body,
        signal: clock.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      if (!sandboxNoticed && options.sandbox && response.headers[options.sandbox.header] !== undefined) {
        sandboxNoticed = true;
        options.sandbox.noticed();
      }
      const ok = status >= 200 && status < 300;
      const limit = ok ? maxBodyBytes : MAX_ERROR_BODY_BYTES;
      const bytes = await readCapped(response.body, response.headers['content-length'], limit);
      if (bytes === undefined && ok) {
        throw fail('bad_response', `the cloud API sent a response too large to handle (over ${formatBytes(limit)})`, { status, request: what });
      }
      const retryAfter = response.headers['retry-after'];
      return answerOf(status, bytes ?? [], Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, what);
    } catch (raw) {
      if (raw instanceof CloudError) throw raw;
      // The status travels with a failure after it: a 2xx whose body broke off was still applied.
      throw transportError(raw, clock.signal, { label: what, seconds, fail, status });
    } finally {
      release();
    }
  }

  return {
    send,
    fail,
    label,
    budgets,
    async close() {
      if (own) await Promise.all([own.read.close(), own.change.close()]);
    },
  };
}

/** A low-level failure (undici, socket, abort) → timeout or network. */
function transportError(raw: unknown, signal: AbortSignal, context: { label: string; seconds: string; fail: Fail; status: number | undefined }): CloudError {
  const code = errorCode(raw);
  const cause = raw instanceof Error ? raw : new Error(String(raw));
  const at = { request: context.label, status: context.status };
  if ((signal.aborted && signal.reason instanceof DeadlinePassed) || (code !== undefined && TIMEOUT_ERROR_CODES.has(code))) {
    return context.fail('timeout', `the cloud API did not answer within ${context.seconds} s`, { ...at, cause: withCode(cause, code ?? 'TIMEOUT') });
  }
  const shown = code ?? cause.name;
  const message =
    code !== undefined && CONNECT_ERROR_CODES.has(code)
      ? `could not connect to the cloud API (${shown})`
      : `the connection to the cloud API broke off (${shown})`;
  return context.fail('network', message, { ...at, cause: withCode(cause, code) });
}

/** The code of a socket or undici error; for a failed multi-address connect, that of its first failure. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0]);
  if (cause !== undefined && cause !== error) return errorCode(cause);
  return undefined;
}

/**
 * A fresh error holding only name, code and a scrubbed message: undici errors can reference request options. A copy
 * of someone else's error with its code (ECONNRESET, UND_ERR_*), so not a CodedError of ours.
 */
class LowLevelCause extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

function withCode(error: Error, code: string | undefined): LowLevelCause {
  return new LowLevelCause(error.name, error.message, code);
}

function scrubbedCause(cause: unknown, redact: (text: string) => string): LowLevelCause {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return new LowLevelCause(cause.name, redact(cause.message), typeof code === 'string' ? code : undefined);
  }
  return new LowLevelCause('Error', redact(String(cause)), undefined);
}

/**
 * An answer over its body's bytes as they came: joined and decoded only when its text is asked for, hashed only when
 * its digest is (a list page read every interval and unchanged costs neither a copy nor a decoding).
 */
function answerOf(status: number, chunks: readonly Buffer[], retryAfter: string | undefined, request: string): CloudHttpResponse {
  let text: string | undefined;
  return {
    status,
    get text() {
      text ??= chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
      return text;
    },
    sha256() {
      const hash = createHash('sha256');
      for (const chunk of chunks) hash.update(chunk);
      return hash.digest('base64');
    },
    retryAfter,
    request,
  };
}

/**
 * Reads a body up to `limit` bytes, as the chunks it came in. Over the limit (announced or
 * actual) the body is destroyed, which closes the connection instead of
 * buffering the rest, and the result is undefined.
 */
async function readCapped(body: Dispatcher.ResponseData['body'], contentLength: string | string[] | undefined, limit: number): Promise<Buffer[] | undefined> {
  const announced = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(announced) && announced > limit) {
    body.destroy();
    return undefined;
  }
  // Events rather than `for await`: the async iterator cost more per answer than the rest of the transport.
  return new Promise<Buffer[] | undefined>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        body.destroy();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => resolve(chunks));
    body.once('error', reject);
  });
}

export function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}
