import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { ListenOptions } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from '../log';
import { clientKey, trustedProxies } from './client-address';

// What stands in front of Bolt's HTTP receiver: what Bolt lacks (bounded
// body reads, caps on bodies read before their signature is checked, in all
// and per client, a deadline for them), and a first signature check. Bolt
// checks every signature again behind it (src/slack/receiver.ts): two checks,
// so that a mistake in either lets nothing through. Nothing unsigned may cost
// more than reading a bounded body and checking its signature, so the order is:
//   0. a POST to a path that is not an endpoint is answered 404 at once;
//   1. headers only: a body announced larger than the bound (413), a missing
//      or malformed signature, a timestamp more than 5 minutes from now in
//      either direction (401) are refused before a byte of the body is read;
//      only Slack's SSL check comes unsigned (a small form, no timestamp);
//   2. so are requests past the number of bodies one client may have read at
//      once before their signature is checked (429 with Retry-After), and
//      past the number read at once from everyone (503 with Retry-After):
//      bodies announced large and small are counted apart, so stalled large
//      ones never keep Slack's own small requests out, and one client's
//      share is small, so that one client holding many slow connections
//      keeps no one else out (src/slack/client-address.ts says who a client
//      is, behind a proxy too);
//   3. the body is read up to the bound (413 past it), and cut when it has
//      not all arrived by a short deadline (408), a byte now and then or not;
//      the server itself cuts slow headers and slow requests (Node's
//      headersTimeout and requestTimeout);
//   4. an unsigned body is answered 200 and empty if it is Slack's SSL check
//      (a form whose ssl_check is 1), and refused otherwise (401): nothing of
//      it goes on, since Bolt answers what it takes for an SSL check without
//      checking its signature;
//   5. the signature is checked, constant-time (401);
//   6. the body is parsed once, as Bolt will parse it: an SSL check, signed,
//      is answered here too; and Bolt trusts the shape of what it parses (a
//      payload of `null` makes it throw where nothing answers; an interactive
//      payload without a user or view makes it answer 500), so what Slack
//      never sends is refused here with 400;
//   7. Bolt gets the body already read, and checks its signature again.

/** Largest body accepted. Slack's payloads carry our own messages and modals, which stay far below it. */
export const BODY_LIMIT = 1024 * 1024;
/** Slack's rule: a request signed more than 5 minutes from now (either way) is refused. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
/** Slack's SSL check may come unsigned; it is tiny. */
const SSL_CHECK_LIMIT = 1024;
/** The one content type Bolt reads as a form (compared whole, as Bolt does); it reads every other as JSON. */
const FORM = 'application/x-www-form-urlencoded';

/** What a request may hold before its signature is checked: memory (bodies read at once) and time. */
export interface UnverifiedLimits {
  /** A body announced larger than this, or with no length (chunked), counts as large. */
  largeBodyBytes: number;
  /** Large bodies read at once; past it, 503. */
  largeReads: number;
  /** Small bodies read at once; past it, 503. */
  smallReads: number;
  /** Bodies, large and small, read at once for one client (src/slack/client-address.ts); past it, 429. */
  clientReads: number;
  /** A body not received in full this long after its headers is cut (408), however it trickles in. */
  bodyDeadlineMs: number;
  /** Headers not complete this long after the connection opened (or the request began) are cut (Node's headersTimeout, 408). */
  headersTimeoutMs: number;
  /** A request (headers and body) not received in full this long after it began is cut (Node's requestTimeout, 408). */
  requestTimeoutMs: number;
  /** How often the server looks for connections past those two (Node's connectionsCheckingInterval; 30 s by default). */
  timeoutCheckIntervalMs: number;
}

/**
 * Slack's requests are a few kilobytes sent at once from Slack's servers, and
 * Slack stops waiting for an ack after 3 s: a request that takes seconds to
 * arrive is not worth waiting for, and one address never has more than a few
 * on their way at once. What unverified bodies can hold is bounded to 16 × 1 MB
 * (large) + 256 × 64 KB (small) = 32 MB, whoever sends them, and one client
 * holds 8 of those places at most, each for 3 s at most; Node's defaults read
 * any number at once and wait 5 minutes for a body. Constants, not settings:
 * they bound what strangers can cost, and Slack's own traffic stays far below
 * them.
 */
export const UNVERIFIED_LIMITS: Readonly<UnverifiedLimits> = {
  largeBodyBytes: 64 * 1024,
  largeReads: 16,
  smallReads: 256,
  clientReads: 8,
  bodyDeadlineMs: 3_000,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  timeoutCheckIntervalMs: 1_000,
};

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasUser = (p: Plain) => isPlain(p.user) && typeof p.user.id === 'string';

/** Why the headers alone show the request is not from Slack, or null when its body is worth reading. */
export function unsignedHeadersReason(headers: IncomingHttpHeaders, nowMs: number): string | null {
  // A header missing or sent twice reads as "undefined" or "a,b", which no pattern below accepts.
  const timestamp = String(headers['x-slack-request-timestamp']);
  if (!/^\d{1,12}$/.test(timestamp)) return 'no request timestamp';
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return 'a timestamp more than 5 minutes from now';
  if (!/^v0=[0-9a-f]{64}$/.test(String(headers['x-slack-signature']))) return 'no v0 signature';
  return null;
}

/** Whether `v0=HMAC-SHA256(secret, "v0:<timestamp>:<body>")` matches, compared in constant time. */
export function signatureMatches(headers: IncomingHttpHeaders, raw: Buffer, signingSecret: string): boolean {
  const expected = createHmac('sha256', signingSecret)
    .update(`v0:${String(headers['x-slack-request-timestamp'])}:`)
    .update(raw)
    .digest();
  const given = Buffer.from(String(headers['x-slack-signature']).slice(3), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A body read as Bolt will read it (a form, or else JSON): Slack's SSL check, a body Slack never sends, or one it may send. */
export type BodyReading = { kind: 'ssl_check' } | { kind: 'malformed'; reason: string } | { kind: 'slack' };

const SSL_CHECK: BodyReading = { kind: 'ssl_check' };
const MAY_BE_SLACK: BodyReading = { kind: 'slack' };
const malformed = (reason: string): BodyReading => ({ kind: 'malformed', reason });

/**
 * Reads a body once, as Bolt reads it. An SSL check is what Bolt takes for one, by its own rule (a form, exactly that
 * content type, whose one `ssl_check` is `1`), which it applies before it checks a signature. A body Slack never sends
 * is one Bolt would throw on, or answer 500.
 */
export function readBody(raw: string, contentType: string | undefined): BodyReading {
  if (contentType === FORM) {
    const form = parseQuery(raw);
    if (form.ssl_check === '1') return SSL_CHECK;
    if (typeof form.payload !== 'string')
      return typeof form.command === 'string' ? MAY_BE_SLACK : malformed('a form body with neither a command nor a payload');
    let payload: unknown;
    try {
      payload = JSON.parse(form.payload);
    } catch {
      return malformed('a payload that is not JSON');
    }
    if (!isPlain(payload) || typeof payload.type !== 'string') return malformed('a payload that is not an object with a type');
    if (['view_submission', 'view_closed', 'block_actions', 'shortcut', 'message_action', 'block_suggestion'].includes(payload.type) && !hasUser(payload))
      return malformed(`a ${payload.type} without a user`);
    if (payload.type.startsWith('view_') && !isPlain(payload.view)) return malformed(`a ${payload.type} without a view`);
    if (payload.type === 'block_actions' && !Array.isArray(payload.actions)) return malformed('a block_actions without actions');
    return MAY_BE_SLACK;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return malformed('a JSON body that does not parse');
  }
  return isPlain(body) && typeof body.type === 'string' ? MAY_BE_SLACK : malformed('a JSON body that is not an object with a type');
}

export interface RequestGuardOptions {
  signingSecret: string;
  logger: Logger;
  /** The paths Slack (and agents) POST to; a POST to any other is answered 404. `/slack/events` by default. */
  endpoints?: readonly string[];
  /** Proxies whose X-Forwarded-For names the client (VS_TRUSTED_PROXIES: addresses or CIDR blocks); none by default. */
  trustedProxies?: readonly string[];
  now?: () => number;
  /** Largest body read; BODY_LIMIT by default. */
  bodyLimit?: number;
  /** UNVERIFIED_LIMITS by default; tests shorten them. */
  limits?: Partial<UnverifiedLimits>;
}

type Start = (listen: number | string | ListenOptions, serverOptions?: ServerOptions) => Promise<Server>;

/** Puts the guard in front of the receiver's request listener, and its timeouts on the server the receiver starts (HTTP mode). */
export function guardRequests(receiver: HTTPReceiver, options: RequestGuardOptions): void {
  const inner = receiver.requestListener;
  const now = options.now ?? Date.now;
  const bodyLimit = options.bodyLimit ?? BODY_LIMIT;
  const limits = { ...UNVERIFIED_LIMITS, ...options.limits };
  const endpoints = options.endpoints ?? ['/slack/events'];
  const trusted = trustedProxies(options.trustedProxies ?? []);
  const refusals = refusalLog(options.logger, now);
  const largeReads = new Slots(limits.largeReads);
  const smallReads = new Slots(limits.smallReads);
  const clientReads = new SlotsPerKey(limits.clientReads);
  // A read's place frees within the deadline at worst.
  const retryAfter = String(Math.ceil(limits.bodyDeadlineMs / 1000));

  const start = receiver.start.bind(receiver) as Start;
  const timeouts: ServerOptions = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
  };
  const guardedStart: Start = (listen, serverOptions) => start(listen, { ...timeouts, ...serverOptions });
  receiver.start = guardedStart as HTTPReceiver['start'];

  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return inner(req, res);
    // Nothing is read of a POST to a path Bolt would not route (it would throw where nothing answers).
    if (!endpoints.includes(req.url ?? '') && !endpoints.includes(pathOf(req.url))) return refuse(res, 404, refusals, 'a POST to another path');
    // NaN for a chunked body (no length announced): no bound below admits it as small or as an SSL check.
    const announced = Number(req.headers['content-length']);
    if (announced > bodyLimit) return refuse(res, 413, refusals, 'a body larger than the limit');
    const headersReason = unsignedHeadersReason(req.headers, now());
    const maybeSslCheck = headersReason === 'no request timestamp' && req.headers['content-type'] === FORM && announced <= SSL_CHECK_LIMIT;
    if (headersReason !== null && !maybeSslCheck) return refuse(res, 401, refusals, headersReason);
    const client = clientKey(req.socket.remoteAddress, req.headers['x-forwarded-for'], trusted);
    if (!clientReads.take(client))
      return refuse(res, 429, refusals, 'too many bodies read at once for one client before their signature is checked', { 'retry-after': retryAfter });
    const reads = announced <= limits.largeBodyBytes ? smallReads : largeReads;
    if (!reads.take()) {
      clientReads.release(client);
      return refuse(res, 503, refusals, 'too many bodies read at once before their signature is checked', { 'retry-after': retryAfter });
    }

    // An SSL check's length is already known to be within SSL_CHECK_LIMIT. Callbacks rather than promises: this runs
    // for every request, and each promise of a chain is an allocation and a turn of the microtask queue.
    readBounded(req, bodyLimit, limits.bodyDeadlineMs, (read) => {
      reads.release();
      clientReads.release(client);
      // The client went away mid-body: Node has closed the connection already.
      if (read === 'gone') return void res.destroy();
      try {
        passOn(req, res, read, maybeSslCheck);
      } catch {
        // The listener behind threw: never leave a connection waiting for an answer that will not come.
        res.destroy();
      }
    });
  };

  /** A body read whole, or why its reading stopped: refused, answered here, or handed to Bolt's listener. */
  const passOn = (req: IncomingMessage, res: ServerResponse, read: Buffer | 'too large' | 'late', maybeSslCheck: boolean): void => {
    if (read === 'too large') return refuse(res, 413, refusals, 'a body larger than the limit');
    if (read === 'late') return refuse(res, 408, refusals, 'a body not received in full by the deadline');
    const contentType = req.headers['content-type'];
    if (maybeSslCheck) {
      // Unsigned and small: only Slack's SSL check comes so. Answered here; nothing of it goes on.
      if (readBody(read.toString('utf8'), contentType).kind === 'ssl_check') return answerSslCheck(res);
      return refuse(res, 401, refusals, 'no request timestamp');
    }
    if (!signatureMatches(req.headers, read, options.signingSecret)) return refuse(res, 401, refusals, 'a signature that does not match');
    // Read once, after the signature: a stranger's body costs no parse.
    const body = readBody(read.toString('utf8'), contentType);
    // Signed, it is still one Bolt would answer without its check: answered here too, so that none reaches Bolt.
    if (body.kind === 'ssl_check') return answerSslCheck(res);
    if (body.kind === 'malformed') {
      options.logger.warn('refused a malformed request to the Slack endpoint', { reason: body.reason, bytes: read.length });
      res.writeHead(400, { 'content-length': '0' }).end();
      return;
    }
    // Bolt reads a body already buffered from here instead of the stream, and checks its signature again.
    (req as IncomingMessage & { rawBody?: Buffer }).rawBody = read;
    inner(req, res);
  };
}

/** Slack's SSL check is answered as Bolt would: 200, nothing in the body. */
function answerSslCheck(res: ServerResponse): void {
  res.writeHead(200, { 'content-length': '0' }).end();
}

/** The path of a request target, as Bolt reads it to route the request. */
function pathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

/** A fixed number of places, taken and given back. */
class Slots {
  private taken = 0;
  constructor(private readonly size: number) {}
  take(): boolean {
    if (this.taken >= this.size) return false;
    this.taken += 1;
    return true;
  }
  release(): void {
    this.taken -= 1;
  }
}

/**
 * Answers a refusal and closes the connection, so a body left unread is
 * never read: nothing unsigned costs more than its headers.
 */
/** A fixed number of places for each key; a key holding none is forgotten, so what is kept is bounded by the places taken. */
class SlotsPerKey {
  private readonly taken = new Map<string, number>();
  constructor(private readonly size: number) {}
  take(key: string): boolean {
    const held = this.taken.get(key) ?? 0;
    if (held >= this.size) return false;
    this.taken.set(key, held + 1);
    return true;
  }
  release(key: string): void {
    const held = this.taken.get(key) ?? 0;
    if (held <= 1) this.taken.delete(key);
    else this.taken.set(key, held - 1);
  }
}

function refuse(
  res: ServerResponse,
  status: 401 | 404 | 408 | 413 | 429 | 503,
  refusals: (reason: string) => void,
  reason: string,
  headers: Record<string, string> = {},
): void {
  refusals(reason);
  // `connection: close`: Node ends the socket once this is written instead of reading the rest of the body.
  res.writeHead(status, { ...headers, connection: 'close', 'content-length': '0' }).end();
}

/** Refusals are logged, but a flood of them must not become a flood of lines: one line per 10 s with counts. */
function refusalLog(logger: Logger, now: () => number): (reason: string) => void {
  let since = -Infinity;
  let counts: Record<string, number> = {};
  return (reason) => {
    counts[reason] = (counts[reason] ?? 0) + 1;
    if (now() - since < 10_000) return;
    logger.warn('refused requests not verified as coming from Slack', { counts });
    since = now();
    counts = {};
  };
}

/** The body, or why reading it stopped: past `limit` bytes, not all there after `deadlineMs`, or the client gone first. Told once, to `done`. */
function readBounded(req: IncomingMessage, limit: number, deadlineMs: number, done: (outcome: Buffer | 'too large' | 'late' | 'gone') => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  // Every request closes, once answered too: only a close before the end is a client gone.
  let settled = false;
  const settle = (outcome: Buffer | 'too large' | 'late' | 'gone') => {
    settled = true;
    clearTimeout(deadline);
    done(outcome);
  };
  const stop = (outcome: 'too large' | 'late') => {
    // What arrives after this is dropped: the refusal closes the connection.
    req.off('data', onData);
    settle(outcome);
  };
  const deadline = setTimeout(() => stop('late'), deadlineMs);
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) return stop('too large');
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.on('end', () => {
    // Copied out of the chunks even when there is one: a chunk is a view of the socket's whole read buffer, kept alive with it.
    if (!settled) settle(Buffer.concat(chunks, size));
  });
  req.on('close', () => {
    if (!settled) settle('gone');
  });
}

type ProcessEventErrorHandler = NonNullable<ConstructorParameters<typeof HTTPReceiver>[0]['processEventErrorHandler']>;

/**
 * What escapes Bolt's processing of a request (our listeners catch their own
 * errors) comes from a payload Bolt could not read: 400 instead of Bolt's
 * 500, and the error logged with its details, which Bolt keeps for debug.
 */
export function refuseUnprocessable(logger: Logger): ProcessEventErrorHandler {
  return ({ error, response }) => {
    if (response.headersSent) {
      logger.error('a request failed after it was acknowledged', { error });
      return Promise.resolve(false);
    }
    logger.warn('refused a request Bolt could not process', { error });
    response.writeHead(400).end();
    return Promise.resolve(true);
  };
}
