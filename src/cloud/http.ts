import { Pool, type Dispatcher } from 'undici';
import { SANDBOX_HEADER } from '../config';
import type { Logger } from '../log';
import { parseErrorBody, type WireFormat } from './codec';
import { CloudError, type CloudErrorInit, type CloudErrorKind } from './errors';

// The transport to the cloud API, in one place: one keep-alive Pool bounded to
// `maxConnections`, Basic auth, the format suffix and headers of spec 4, one
// deadline per call (retries included), a cap on the size of answers, the
// retry policy as data, and the mapping of every failure to a CloudError.
// The API key lives only in the Authorization header built here; every text
// that leaves this module (messages, causes, logs) is scrubbed of it anyway.

export type HttpMethod = 'GET' | 'POST';

/** When and how a call is tried again. POST is absent on purpose: a change is never repeated behind the user's back. */
export interface RetryPolicy {
  /** Tries after the first one. */
  readonly maxRetries: number;
  readonly methods: readonly HttpMethod[];
  readonly statuses: readonly number[];
  /** Low-level error codes that mean "the request may not have been served; try again". */
  readonly errorCodes: readonly string[];
  /** First backoff; doubled each retry, with jitter. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A 429 asking for a longer wait than this is not waited out: the caller gets rate_limited. */
  readonly maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  methods: Object.freeze(['GET'] as HttpMethod[]),
  statuses: Object.freeze([502, 503, 504]),
  errorCodes: Object.freeze([
    'ECONNREFUSED',
    'ECONNRESET',
    'EPIPE',
    'ETIMEDOUT',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'EAI_AGAIN',
    'UND_ERR_SOCKET',
    'UND_ERR_CLOSED',
  ]),
  baseDelayMs: 100,
  maxDelayMs: 2000,
  maxRetryAfterSeconds: 10,
});

export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Error answers are read only this far: enough for any message, and a huge error page is not buffered. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface CloudHttpOptions {
  /** Base URL of the API, e.g. `https://cloud.example.com` or `http://127.0.0.1:4000/api`. */
  baseUrl: string;
  accountId: string;
  apiKey: string;
  format: WireFormat;
  /** Deadline of one call, its retries included. */
  timeoutMs: number;
  /** Upper bound on simultaneous connections to the API. */
  maxConnections: number;
  maxBodyBytes?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  /** A dispatcher to use instead of our own Pool (tests: MockAgent). Not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Jitter source, [0, 1). */
  random?: () => number;
  /** Called once, on the first answer that says it comes from the sandbox (SANDBOX_HEADER). */
  onSandbox?: () => void;
}

export interface CloudRequest {
  method: HttpMethod;
  /** Path without the format suffix, e.g. `/virtual_machines/42/firewall_rules`. */
  path: string;
  body?: string;
  /** 2xx statuses this operation answers with; any other status is an error. */
  expectedStatuses: readonly number[];
}

export interface CloudHttpResponse {
  status: number;
  text: string;
  /** The Retry-After header, when the API sent one. */
  retryAfter?: string;
  /** `GET /virtual_machines/42/firewall_rules.json`: for errors raised on this answer later. */
  request: string;
}

export interface CloudHttp {
  readonly format: WireFormat;
  send(request: CloudRequest): Promise<CloudHttpResponse>;
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<WireFormat, string> = { json: 'application/json', xml: 'application/xml' };

/** Codes of failures before the request could reach the API. */
const CONNECT_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT',
]);
const TIMEOUT_ERROR_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** The reason our deadline aborts a call with, told apart from any other abort. */
class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

export function createCloudHttp(options: CloudHttpOptions): CloudHttp {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const random = options.random ?? Math.random;
  const { timeoutMs, format, logger } = options;
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');

  const ownPool =
    options.dispatcher === undefined
      ? new Pool(origin, {
          connections: options.maxConnections,
          pipelining: 1,
          keepAliveTimeout: 30_000,
          keepAliveMaxTimeout: 120_000,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          connect: { timeout: timeoutMs },
        })
      : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (ownPool as Pool);

  const credentials = Buffer.from(`${options.accountId}:${options.apiKey}`).toString('base64');
  const secrets = [options.apiKey, credentials].filter((s) => s.length >= 4);
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join('[REDACTED]'), text);
  const headers = {
    authorization: `Basic ${credentials}`,
    accept: CONTENT_TYPES[format],
    'content-type': CONTENT_TYPES[format],
  };
  const seconds = formatSeconds(timeoutMs);
  let sandboxNoticed = false;

  /** Every CloudError of this module is made here, so none can carry a secret. */
  const fail = (kind: CloudErrorKind, message: string, init: CloudErrorInit): CloudError =>
    new CloudError(kind, redact(message), {
      ...init,
      messages: init.messages?.map(redact),
      fieldErrors:
        init.fieldErrors &&
        Object.fromEntries(Object.entries(init.fieldErrors).map(([field, msgs]) => [field, msgs.map(redact)])),
      cause: init.cause === undefined ? undefined : scrubbedCause(init.cause, redact),
    });

  async function exchange(request: CloudRequest, wirePath: string, label: string, signal: AbortSignal): Promise<CloudHttpResponse> {
    const response = await dispatcher.request({
      origin,
      path: wirePath,
      method: request.method,
      headers,
      body: request.body,
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    if (!sandboxNoticed && response.headers[SANDBOX_HEADER] !== undefined) {
      sandboxNoticed = true;
      options.onSandbox?.();
    }
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    const limit = ok ? maxBodyBytes : MAX_ERROR_BODY_BYTES;
    const text = await readCapped(response.body, response.headers['content-length'], limit);
    if (text === undefined && ok) {
      throw fail('bad_response', `the cloud API sent a response too large to handle (over ${formatBytes(limit)})`, {
        status: response.statusCode,
        request: label,
      });
    }
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode,
      text: text ?? '',
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      request: label,
    };
  }

  async function send(request: CloudRequest): Promise<CloudHttpResponse> {
    const wirePath = `${basePath}${request.path}.${format}`;
    const label = `${request.method} ${request.path}.${format}`;
    const retriable = policy.methods.includes(request.method);
    const deadline = Date.now() + timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DeadlinePassed('deadline passed')), timeoutMs);

    /** Waits before the next try; false when there is no try left or no time for it. */
    const waitBeforeRetry = async (attempt: number, delayMs: number): Promise<boolean> => {
      if (!retriable || attempt > policy.maxRetries) return false;
      if (Date.now() + delayMs >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return true;
    };
    const backoffMs = (attempt: number) => {
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    };

    try {
      for (let attempt = 1; ; attempt++) {
        const started = Date.now();
        let response: CloudHttpResponse;
        try {
          response = await exchange(request, wirePath, label, controller.signal);
        } catch (raw) {
          const error =
            raw instanceof CloudError ? raw : transportError(raw, controller.signal, { label, seconds, fail });
          logger?.debug('cloud API request failed', {
            method: request.method,
            path: request.path,
            error: error.code,
            ms: Date.now() - started,
            attempt,
          });
          const code = errorCode(error.cause);
          const worthRetrying = error.kind === 'network' && code !== undefined && policy.errorCodes.includes(code);
          if (worthRetrying && (await waitBeforeRetry(attempt, backoffMs(attempt)))) continue;
          throw error;
        }
        logger?.debug('cloud API request', {
          method: request.method,
          path: request.path,
          status: response.status,
          ms: Date.now() - started,
          attempt,
        });
        if (request.expectedStatuses.includes(response.status)) return response;

        const error = statusError(response, request, label, fail);
        if (policy.statuses.includes(response.status) && (await waitBeforeRetry(attempt, backoffMs(attempt)))) continue;
        if (response.status === 429) {
          const waitSeconds = error.retryAfterSeconds;
          const delayMs = waitSeconds === undefined ? backoffMs(attempt) : waitSeconds * 1000;
          const acceptable = waitSeconds === undefined || waitSeconds <= policy.maxRetryAfterSeconds;
          if (acceptable && (await waitBeforeRetry(attempt, delayMs))) continue;
        }
        throw error;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    format,
    send,
    async close() {
      await ownPool?.close();
    },
  };
}

type Fail = (kind: CloudErrorKind, message: string, init: CloudErrorInit) => CloudError;

/** An HTTP status that is not the operation's answer → the CloudError of its kind, with what the body says. */
function statusError(response: CloudHttpResponse, request: CloudRequest, label: string, fail: Fail): CloudError {
  const { status } = response;
  const { messages, fieldErrors } = parseErrorBody(response.text);
  const init: CloudErrorInit = { status, messages, fieldErrors, request: label };
  const said = messages.length > 0 ? `: ${messages.slice(0, 3).join('; ')}` : '';
  switch (status) {
    case 400:
    case 422:
      return fail('validation', `the cloud API rejected the parameters (HTTP ${status})${said}`, init);
    case 401:
      return fail('unauthorized', `the cloud API did not accept the credentials (HTTP 401)${said}`, init);
    case 403:
      return fail('forbidden', `the cloud API refused the request (HTTP 403)${said}`, init);
    case 404:
      return fail('not_found', `the cloud API has no such resource (HTTP 404)${said}`, init);
    case 429: {
      const retryAfterSeconds = parseRetryAfter(response.retryAfter);
      return fail('rate_limited', `the cloud API is rate-limiting requests (HTTP 429)${said}`, { ...init, retryAfterSeconds });
    }
    default:
      if (status >= 500) return fail('server', `the cloud API failed (HTTP ${status})${said}`, init);
      // 204 where a body is needed, 207 Multi-Status, redirects, other 4xx: not an answer we can use.
      return fail('server', `the cloud API answered HTTP ${status}, which ${request.method} ${request.path} does not expect${said}`, init);
  }
}

/** A low-level failure (undici, socket, abort) → timeout or network. */
function transportError(
  raw: unknown,
  signal: AbortSignal,
  context: { label: string; seconds: string; fail: Fail },
): CloudError {
  const code = errorCode(raw);
  const cause = raw instanceof Error ? raw : new Error(String(raw));
  if ((signal.aborted && signal.reason instanceof DeadlinePassed) || (code !== undefined && TIMEOUT_ERROR_CODES.has(code))) {
    return context.fail('timeout', `the cloud API did not answer within ${context.seconds} s`, {
      request: context.label,
      cause: withCode(cause, code ?? 'TIMEOUT'),
    });
  }
  const shown = code ?? cause.name;
  const message =
    code !== undefined && CONNECT_ERROR_CODES.has(code)
      ? `could not connect to the cloud API (${shown})`
      : `the connection to the cloud API broke off (${shown})`;
  return context.fail('network', message, { request: context.label, cause: withCode(cause, code) });
}

/** The code of a socket or undici error; for a failed multi-address connect, that of its first failure. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0]);
  if (cause !== undefined && cause !== error) return errorCode(cause);
  return undefined;
}

/** A fresh error holding only name, code and a scrubbed message: undici errors can reference request options. */
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
 * Reads a body as UTF-8 up to `limit` bytes. Over the limit (announced or
 * actual) the body is destroyed, which closes the connection instead of
 * buffering the rest, and the result is undefined.
 */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  contentLength: string | string[] | undefined,
  limit: number,
): Promise<string | undefined> {
  const announced = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (Number.isFinite(announced) && announced > limit) {
    body.destroy();
    return undefined;
  }
  // Events rather than `for await`: the async iterator cost more per answer than the rest of the transport.
  return new Promise<string | undefined>((resolve, reject) => {
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
    body.once('end', () => resolve(Buffer.concat(chunks, size).toString('utf8')));
    body.once('error', reject);
  });
}

/** Retry-After as whole seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}
