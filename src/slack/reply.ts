import type { Rendered } from './blocks/mrkdwn';
import { ANSWER_NOT_SHOWN, renderError } from './blocks/messages';
import type { Logger } from '../log';
import type { Target } from '../changes';
import { isCloudError } from '../cloud/errors';
import { cloudErrorMessage } from './blocks/cloud-errors';
import type { ListenerContext, Outcome } from './context';
import type { Respond, ResponsePayload } from './response-url';
import { undeliveredBy, type Undelivered } from './send';

// Every answer to a command goes through respond(); a failure to deliver
// (expired response_url, Slack down, Slack refusing it, or over Block Kit's
// limits and so never sent) is logged with context, never thrown, and the
// request hears it: an answer nobody got is never a success.

/** Anything that answers through a response_url; without one, the answer is logged as undeliverable. */
export interface Replier {
  respond: Respond | undefined;
  log: Logger;
  /** Hears why an answer did not reach Slack (a request: its outcome is then `failed`, never `succeeded`). */
  undelivered?(why: Undelivered): void;
}

export async function replyEphemeral(to: Replier, message: Rendered): Promise<void> {
  await deliver(to, { response_type: 'ephemeral', replace_original: false, ...message });
}

export async function replyError(to: Replier, text: string): Promise<void> {
  await replyEphemeral(to, renderError(text));
}

/** Summaries: visible in the channel unless VS_RESPONSE_VISIBILITY=ephemeral. */
export async function replySummary(ctx: ListenerContext, to: Replier, message: Rendered): Promise<void> {
  await deliver(to, { response_type: ctx.config.responseVisibility, replace_original: false, ...message });
}

/**
 * A page of a list, from Prev or Next in its message (docs/product.md, Long lists): a message the channel reads is left
 * as everyone sees it, and the page goes to the one who clicked, for them alone; a message that was theirs alone
 * already is replaced in place.
 */
export async function deliverPage(to: Replier, clickedInEphemeral: boolean, message: Rendered): Promise<boolean> {
  return deliver(to, { response_type: 'ephemeral', replace_original: clickedInEphemeral, ...message });
}

export async function deliver(to: Replier, payload: ResponsePayload): Promise<boolean> {
  if (!to.respond) {
    to.log.warn('could not deliver the answer: the request has no response_url');
    return false;
  }
  try {
    await to.respond(payload);
    return true;
  } catch (error) {
    const why = undeliveredBy(error);
    to.log.warn(`could not deliver the answer to Slack: ${UNDELIVERED_WORDS[why]}`, { undelivered: why, error: describeDeliveryError(error) });
    to.undelivered?.(why);
    // Slack would not take this answer, but its response_url still works: the person is told so, rather than nothing.
    if (why === 'over_limits' || why === 'refused') {
      await to.respond({ response_type: 'ephemeral', replace_original: false, ...renderError(ANSWER_NOT_SHOWN) }).catch((again: unknown) => {
        to.log.warn('could not tell that the answer was not shown', { error: describeDeliveryError(again) });
      });
    }
    return false;
  }
}

const UNDELIVERED_WORDS: Readonly<Record<Undelivered, string>> = {
  over_limits: "it is over Block Kit's limits, so it was not sent",
  refused: 'Slack refused it',
  expired: 'the response_url has expired or is used up',
  unreachable: 'Slack did not answer, or is unavailable',
};

function describeDeliveryError(error: unknown): { name: string; code?: string; message: string; status?: number } {
  if (error instanceof Error) {
    const { code, status } = error as { code?: unknown; status?: unknown };
    // Only what explains it: never the URL or request options.
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}), ...(typeof status === 'number' ? { status } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

/** A failed read, told in the words of docs/product.md, Errors the user sees: `not_found` for a 404 (the id names nothing), `failed` for the rest. */
export async function replyCloudError(ctx: ListenerContext, req: Replier, error: unknown, subject: Target): Promise<Outcome> {
  const notFound = isCloudError(error) && error.kind === 'not_found';
  // A 404 is a user's typo, not a fault of ours: one plain line, no stack trace.
  if (notFound) req.log.info('the cloud API has no such object', { kind: error.kind, status: error.status, request: error.request, subject });
  else req.log.warn('cloud API call failed', { error, subject });
  await replyError(req, cloudErrorMessage(error, subject, ctx.config.cloud.timeoutMs));
  return notFound ? 'not_found' : 'failed';
}
