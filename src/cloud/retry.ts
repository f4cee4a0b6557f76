import type { Logger } from '../log';
import type { CloudError } from './errors';
import { CallClock, errorCode, type CloudHttpResponse, type CloudRequest, type HttpMethod, type Transport } from './transport';

// When a call is tried again, as data, and the loop that does it. POST is
// absent from the methods on purpose: a change is never repeated behind the
// user's back.

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

export interface RetryingOptions {
  transport: Transport;
  policy: RetryPolicy;
  /** An answer with a status the operation does not expect → its CloudError. */
  statusError: (response: CloudHttpResponse, request: CloudRequest) => CloudError;
  timeoutMs: number;
  logger?: Logger;
  /** Jitter source, [0, 1). */
  random: () => number;
  /** Waits before a retry; tests record the waits instead of sleeping. */
  wait?: (ms: number) => Promise<void>;
}

/** Sends a request through the transport, trying again as the policy allows, within one deadline. */
export function retrying(options: RetryingOptions): (request: CloudRequest) => Promise<CloudHttpResponse> {
  const { transport, policy, logger, random } = options;
  const backoffMs = (attempt: number) => {
    const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(ceiling / 2 + (random() * ceiling) / 2);
  };

  return async function send(request) {
    const retriable = policy.methods.includes(request.method);
    const clock = new CallClock(options.timeoutMs);
    /** Waits before the next try; false when there is no try left or no time for it. */
    const waitBeforeRetry = async (attempt: number, delayMs: number): Promise<boolean> => {
      if (!retriable || attempt > policy.maxRetries) return false;
      if (delayMs >= clock.remainingMs()) return false;
      await (options.wait ?? sleep)(delayMs);
      return true;
    };

    let previous: CloudError | undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        const started = Date.now();
        let response: CloudHttpResponse;
        try {
          response = await transport.send(request, clock);
        } catch (raw) {
          const error = raw as CloudError;
          // A retry that found no connection free reports what made it retry.
          if (error.kind === 'no_connection' && previous !== undefined) throw previous;
          logger?.debug('cloud API request failed', { method: request.method, path: request.path, error: error.code, ms: Date.now() - started, attempt });
          const code = errorCode(error.cause);
          const worthRetrying = error.kind === 'network' && code !== undefined && policy.errorCodes.includes(code);
          if (worthRetrying && (await waitBeforeRetry(attempt, backoffMs(attempt)))) {
            previous = error;
            continue;
          }
          throw error;
        }
        logger?.debug('cloud API request', { method: request.method, path: request.path, status: response.status, ms: Date.now() - started, attempt });
        if (request.expectedStatuses.includes(response.status)) return response;

        const error = options.statusError(response, request);
        previous = error;
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
      clock.dispose();
    }
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After as whole seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}
