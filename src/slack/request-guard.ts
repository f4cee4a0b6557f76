import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from '../log';

// What stands in front of Bolt's HTTP receiver. Nothing unsigned may cost
// more than reading a bounded body and checking its signature, so the order is:
//   1. headers only: a body announced larger than the bound (413), a missing
//      or malformed signature, a timestamp more than 5 minutes from now in
//      either direction (401) are refused before a byte of the body is read;
//   2. the body is read up to the bound (413 past it);
//   3. the signature is checked, constant-time (401);
//   4. only then is the body parsed: Bolt trusts the shape of what it parses
//      (a payload of `null` makes it throw outside any handler; an interactive
//      payload without a user or view makes it answer 500), so what Slack
//      never sends is refused here with 400;
//   5. Bolt gets the body already read, and checks the signature again.

/** Largest body accepted. Slack's payloads carry our own messages and modals, which stay far below it. */
export const BODY_LIMIT = 1024 * 1024;
/** Slack's rule: a request signed more than 5 minutes from now (either way) is refused. */
export const TIMESTAMP_TOLERANCE_SECONDS = 5 * 60;
/** Slack's SSL check may come unsigned; it is tiny. */
const SSL_CHECK_LIMIT = 1024;

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasUser = (p: Plain) => isPlain(p.user) && typeof p.user.id === 'string';

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return typeof v === 'string' ? v : undefined;
};

/** Why the headers alone show the request is not from Slack, or null when its body is worth reading. */
export function unsignedHeadersReason(headers: IncomingHttpHeaders, nowMs: number): string | null {
  const timestamp = header(headers, 'x-slack-request-timestamp');
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return 'no request timestamp';
  if (Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) > TIMESTAMP_TOLERANCE_SECONDS) return 'a timestamp more than 5 minutes from now';
  const signature = header(headers, 'x-slack-signature');
  if (signature === undefined || !/^v0=[0-9a-f]{64}$/.test(signature)) return 'no v0 signature';
  return null;
}

/** Whether `v0=HMAC-SHA256(secret, "v0:<timestamp>:<body>")` matches, compared in constant time. */
export function signatureMatches(headers: IncomingHttpHeaders, raw: Buffer, signingSecret: string): boolean {
  const timestamp = header(headers, 'x-slack-request-timestamp') ?? '';
  const signature = header(headers, 'x-slack-signature') ?? '';
  const expected = createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(raw).digest();
  const given = Buffer.from(signature.slice(3), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Why a signed body cannot be a Slack request, or null when it may be one. */
export function malformedReason(raw: string, contentType: string | undefined): string | null {
  if (contentType === 'application/x-www-form-urlencoded') {
    const form = parseQuery(raw);
    if (typeof form.payload !== 'string') {
      if (form.ssl_check === '1' || typeof form.command === 'string') return null;
      return 'a form body with neither a command nor a payload';
    }
    let payload: unknown;
    try {
      payload = JSON.parse(form.payload);
    } catch {
      return 'a payload that is not JSON';
    }
    if (!isPlain(payload) || typeof payload.type !== 'string') return 'a payload that is not an object with a type';
    if (['view_submission', 'view_closed', 'block_actions', 'shortcut', 'message_action', 'block_suggestion'].includes(payload.type) && !hasUser(payload))
      return `a ${payload.type} without a user`;
    if (payload.type.startsWith('view_') && !isPlain(payload.view)) return `a ${payload.type} without a view`;
    if (payload.type === 'block_actions' && !Array.isArray(payload.actions)) return 'a block_actions without actions';
    return null;
  }
  if (contentType === 'application/json') {
    try {
      const body: unknown = JSON.parse(raw);
      return isPlain(body) && typeof body.type === 'string' ? null : 'a JSON body that is not an object with a type';
    } catch {
      return 'a JSON body that does not parse';
    }
  }
  return null;
}

export interface RequestGuardOptions {
  signingSecret: string;
  logger: Logger;
  now?: () => number;
  /** Largest body read; BODY_LIMIT by default. */
  bodyLimit?: number;
}

/** Puts the guard in front of the receiver's request listener (HTTP mode). */
export function guardRequests(receiver: HTTPReceiver, options: RequestGuardOptions): void {
  const inner = receiver.requestListener;
  const now = options.now ?? Date.now;
  const limit = options.bodyLimit ?? BODY_LIMIT;
  const refusals = refusalLog(options.logger, now);

  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return inner(req, res);
    const announced = Number(req.headers['content-length'] ?? 0);
    if (announced > limit) return refuse(res, 413, refusals, 'a body larger than the limit');
    const headersReason = unsignedHeadersReason(req.headers, now());
    const maybeSslCheck =
      headersReason === 'no request timestamp' && req.headers['content-type'] === 'application/x-www-form-urlencoded' && announced <= SSL_CHECK_LIMIT;
    if (headersReason !== null && !maybeSslCheck) return refuse(res, 401, refusals, headersReason);

    readBounded(req, maybeSslCheck ? SSL_CHECK_LIMIT : limit)
      .then((raw) => {
        if (raw === undefined) return refuse(res, 413, refusals, 'a body larger than the limit');
        if (maybeSslCheck) {
          // Bolt answers an unsigned ssl_check=1 itself and ignores the rest of its body.
          if (parseQuery(raw.toString('utf8')).ssl_check !== '1') return refuse(res, 401, refusals, headersReason);
        } else if (!signatureMatches(req.headers, raw, options.signingSecret)) {
          return refuse(res, 401, refusals, 'a signature that does not match');
        }
        const reason = maybeSslCheck ? null : malformedReason(raw.toString('utf8'), req.headers['content-type']);
        if (reason !== null) {
          options.logger.warn('refused a malformed request to the Slack endpoint', { reason, bytes: raw.length });
          res.writeHead(400).end();
          return;
        }
        // Bolt reads a body already buffered from here instead of the stream.
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
        inner(req, res);
      })
      .catch(() => res.destroy());
  };
}

/**
 * Answers a refusal and closes the connection, so a body left unread is
 * never read: nothing unsigned costs more than its headers.
 */
function refuse(res: ServerResponse, status: 401 | 413, refusals: (reason: string) => void, reason: string): void {
  refusals(reason);
  // `connection: close`: Node ends the socket once this is written instead of reading the rest of the body.
  res.writeHead(status, { connection: 'close', 'content-length': '0' }).end();
}

/** Refusals are logged, but a flood of them must not become a flood of lines: one line per 10 s with counts. */
function refusalLog(logger: Logger, now: () => number): (reason: string) => void {
  let since = -Infinity;
  let counts: Record<string, number> = {};
  return (reason) => {
    counts[reason] = (counts[reason] ?? 0) + 1;
    if (now() - since < 10_000) return;
    logger.warn('refused requests not signed by Slack', { counts });
    since = now();
    counts = {};
  };
}

function readBounded(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
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
    response.writeHead(400);
    response.end();
    return Promise.resolve(true);
  };
}
