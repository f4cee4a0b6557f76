import { targetTitle, type Target } from '../../changes';
import { isCloudError, mayHaveApplied, type CloudError } from '../../cloud/errors';

// The one place that turns a cloud API failure into what the user reads
// (docs/product.md, Errors the user sees), from the error's data: its kind,
// status, the API's own messages and the low-level cause's code. Plain text:
// renderers escape it where they place it. Never a stack trace, never silence.

export function cloudErrorMessage(error: unknown, target: Target, timeoutMs: number): string {
  if (!isCloudError(error)) {
    return 'Something went wrong on our side while handling this. Nothing was changed by it; try again, and tell the bot operator if it repeats.';
  }
  const apiSaid = error.messages.length > 0 ? `: ${error.messages.slice(0, 5).join('; ')}` : '';
  switch (error.kind) {
    case 'not_found':
      return `${targetTitle(target)} was not found`;
    case 'validation': {
      const fields = Object.entries(error.fieldErrors).map(([field, msgs]) => `${field} ${msgs.join(', ')}`);
      const all = [...fields, ...error.messages];
      return `The cloud API refused the request${all.length ? `: ${all.slice(0, 8).join('; ')}` : '.'}`;
    }
    case 'unauthorized':
      return 'The cloud API refused the request (credentials not accepted); ask an admin to check the API key.';
    case 'forbidden':
      return `The cloud API refused the request${apiSaid}. If this is unexpected, ask an admin to check the API key and the account's permissions.`;
    case 'rate_limited':
      return `The cloud API is rate-limiting requests${error.retryAfterSeconds ? `; try again in ${error.retryAfterSeconds} s` : '; try again in a minute'}.`;
    case 'timeout':
      return `The cloud API did not answer within ${seconds(timeoutMs)} s. Try again shortly; if it keeps timing out, check the cloud provider's status.`;
    case 'network':
      return (
        `The cloud API did not answer within ${seconds(timeoutMs)} s (${networkCause(error)}). ` +
        'Try again shortly; if it persists, the bot operator should check VS_API_URL and the network.'
      );
    case 'no_connection':
      return 'The bot has too many requests waiting on the cloud API right now, so this one was not sent and nothing changed. Try again in a moment.';
    case 'bad_response':
      // Why, in the client's own words (too large, not valid JSON/XML, an unknown shape); never the API's body.
      return `The cloud API failed: its answer could not be read (${error.message})${apiSaid}. ${TRY_AGAIN_OR_PROVIDER}`;
    case 'server':
    default:
      return `The cloud API failed${error.status ? ` (HTTP ${error.status})` : ''}${apiSaid}. ${TRY_AGAIN_OR_PROVIDER}`;
  }
}

/**
 * A change whose call timed out, broke off or got an unreadable or 5xx answer
 * may have been applied all the same: the user must check, not retry blindly
 * (a second add-disk would add a second disk).
 */
export function changeFailureMessage(error: unknown, target: Target, timeoutMs: number): string {
  if (isCloudError(error) && !mayHaveApplied(error)) return cloudErrorMessage(error, target, timeoutMs);
  const what = !isCloudError(error)
    ? 'Something went wrong on our side during the change'
    : error.kind === 'timeout'
      ? `The cloud API did not answer within ${seconds(timeoutMs)} s`
      : error.kind === 'network'
        ? `The cloud API did not answer (${networkCause(error)})`
        : error.kind === 'bad_response'
          ? 'The cloud API failed: its answer could not be read'
          : `The cloud API failed${error.status ? ` (HTTP ${error.status})` : ''}`;
  return `${what}, so the change may or may not have been applied. Check ${targetTitle(target)} and \`/vs audit\` before trying again.`;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const TRY_AGAIN_OR_PROVIDER = "Try again in a minute; if it persists, contact the cloud provider's support.";

/** Codes of a connection that was never made; any other code is a connection that broke off. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** "could not connect, ECONNREFUSED" or "the connection broke off, ECONNRESET", from the cause's code. */
function networkCause(error: CloudError): string {
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return 'the connection failed';
  return NOT_CONNECTED.has(code) ? `could not connect, ${code}` : `the connection broke off, ${code}`;
}
