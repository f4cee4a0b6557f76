import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { HTTPReceiver } from '@slack/bolt';
import type { Logger } from '../log';

// Bolt's HTTP receiver trusts the shape of what it parses: a payload of
// `null` makes it throw outside any handler (an unhandled rejection, and the
// request is never answered), and an interactive payload without a user or
// view makes it answer 500. What Slack sends always has these fields, so a
// request without them is refused here with 400 before Bolt reads it.

const BODY_LIMIT = 4 * 1024 * 1024; // Bolt's own default

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasUser = (p: Plain) => isPlain(p.user) && typeof p.user.id === 'string';

/** Why the body cannot be a Slack request, or null when it may be one (signature still to be checked by Bolt). */
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
    if (['view_submission', 'view_closed', 'block_actions', 'shortcut', 'message_action', 'block_suggestion'].includes(payload.type) && !hasUser(payload)) return `a ${payload.type} without a user`;
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

/** Puts the check in front of the receiver's request listener (HTTP mode). */
export function guardRequests(receiver: HTTPReceiver, logger: Logger): void {
  const inner = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return inner(req, res);
    readBody(req)
      .then((raw) => {
        if (raw === undefined) {
          res.writeHead(413).end();
          return;
        }
        const reason = malformedReason(raw.toString('utf8'), req.headers['content-type']);
        if (reason !== null) {
          logger.warn('refused a malformed request to the Slack endpoint', { reason, bytes: raw.length });
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

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
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
  return async ({ error, response }) => {
    if (response.headersSent) {
      logger.error('a request failed after it was acknowledged', { error });
      return false;
    }
    logger.warn('refused a request Bolt could not process', { error });
    response.writeHead(400);
    response.end();
    return true;
  };
}
