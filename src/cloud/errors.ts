import { CodedError } from '../errors';

/** What went wrong talking to the cloud API; the Slack side maps each kind to a message. */
export type CloudErrorKind =
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'validation' // 422
  | 'rate_limited' // 429 after the retries allowed
  | 'server' // 5xx and other unexpected statuses
  | 'timeout' // no answer within VS_API_TIMEOUT_MS
  | 'network' // refused, reset, DNS
  | 'no_connection' // not sent: no connection of its budget came free within VS_API_CONNECTION_WAIT_MS
  | 'bad_response'; // unparsable, too large, or not the shape docs/cloud-api.md gives

export interface CloudErrorInit {
  status?: number;
  /** The API's own messages, in order, without field names. */
  messages?: string[];
  /** The API's field messages (422 `{"errors": {"field": ["msg"]}}`). */
  fieldErrors?: Record<string, string[]>;
  /** Seconds the API asked us to wait (429 Retry-After). */
  retryAfterSeconds?: number;
  /** The operation and path, e.g. `GET /virtual_machines/42/firewall_rules.json`. Never carries credentials. */
  request?: string;
  cause?: unknown;
}

/**
 * The one error the cloud client throws. It never carries the API key:
 * messages are built from status codes and response bodies, and `cause` keeps
 * only the name/code/message of a low-level error, never its request options.
 */
export class CloudError extends CodedError {
  override readonly name = 'CloudError';
  readonly code: `CLOUD_${Uppercase<CloudErrorKind>}`;
  readonly status: number | undefined;
  readonly messages: string[];
  readonly fieldErrors: Record<string, string[]>;
  readonly retryAfterSeconds: number | undefined;
  readonly request: string | undefined;
  /**
   * The API answered 2xx, but its body could not be read (not the API's
   * shape, not JSON/XML, too large, or the connection broke off after the
   * status line). What was asked was done: a change was applied, only its
   * answer is lost. The door records such a change as `applied_unreadable`.
   * Set on `bad_response`, `network` and `timeout` errors whose status is 2xx.
   */
  readonly unreadableSuccess: boolean;

  constructor(
    readonly kind: CloudErrorKind,
    message: string,
    init: CloudErrorInit = {},
  ) {
    super(message, init.cause === undefined ? undefined : { cause: safeCause(init.cause) });
    this.code = `CLOUD_${kind.toUpperCase() as Uppercase<CloudErrorKind>}`;
    this.status = init.status;
    this.messages = init.messages ?? [];
    this.fieldErrors = init.fieldErrors ?? {};
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.request = init.request;
    this.unreadableSuccess =
      (kind === 'bad_response' || kind === 'network' || kind === 'timeout') && init.status !== undefined && init.status >= 200 && init.status < 300;
  }

  toJSON() {
    return {
      name: this.name,
      code: this.code,
      kind: this.kind,
      message: this.message,
      status: this.status,
      messages: this.messages,
      fieldErrors: this.fieldErrors,
      request: this.request,
      unreadableSuccess: this.unreadableSuccess,
    };
  }
}

/**
 * Failures after which a change may have been applied all the same (the
 * request may have reached the API): a timeout, a broken connection, an
 * unreadable or 5xx answer. The others were refused before anything changed.
 * When `unreadableSuccess` is set, the change was applied: see there.
 */
export function mayHaveApplied(error: CloudError): boolean {
  // `no_connection` is absent: such a request was never sent.
  return error.kind === 'timeout' || error.kind === 'network' || error.kind === 'bad_response' || error.kind === 'server';
}

export function isCloudError(e: unknown): e is CloudError {
  return e instanceof CloudError;
}

/** Keep what explains a low-level failure and drop the rest (undici errors can hold request options). */
function safeCause(cause: unknown): { name: string; code?: string; message: string } {
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { name: cause.name, code: typeof code === 'string' ? code : undefined, message: cause.message };
  }
  return { name: 'Error', message: String(cause) };
}
