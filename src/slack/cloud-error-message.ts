import { isCloudError, mayHaveApplied } from '../cloud/errors';

// The one place that turns a cloud API failure into what the user reads
// (PRODUCT.md, "Errors the user sees"). Never a stack trace, never silence.

export type Subject = { kind: 'vs'; id: number } | { kind: 'backup'; id: number };

export function subjectName(subject: Subject): string {
  return subject.kind === 'vs' ? `VS ${subject.id}` : `Backup ${subject.id}`;
}

export function cloudErrorMessage(error: unknown, subject: Subject, timeoutMs: number): string {
  if (!isCloudError(error)) {
    return 'Something went wrong on our side while handling this. Nothing was changed by it; try again, and tell the bot operator if it repeats.';
  }
  const apiSaid = error.messages.length > 0 ? `: ${error.messages.slice(0, 5).join('; ')}` : '';
  const seconds = Math.round(timeoutMs / 100) / 10;
  switch (error.kind) {
    case 'not_found':
      return `${subjectName(subject)} was not found`;
    case 'validation': {
      const fields = Object.entries(error.fieldErrors).map(([field, msgs]) => `${field} ${msgs.join(', ')}`);
      const all = [...fields, ...error.messages];
      return `The cloud API rejected the parameters${all.length ? `: ${all.slice(0, 8).join('; ')}` : '.'}`;
    }
    case 'unauthorized':
      return 'The cloud API refused the request (credentials not accepted); ask an admin to check the API key.';
    case 'forbidden':
      return `The cloud API refused the request${apiSaid}. If this is unexpected, ask an admin to check the API key and the account's permissions.`;
    case 'rate_limited':
      return `The cloud API is rate-limiting requests${error.retryAfterSeconds ? `; try again in ${error.retryAfterSeconds} s` : '; try again in a minute'}.`;
    case 'timeout':
      return `The cloud API did not answer within ${seconds} s. Try again shortly; if it keeps timing out, check the cloud provider's status.`;
    case 'network':
      // The client says which: "could not connect (ECONNREFUSED)" or "the connection … broke off (ECONNRESET)".
      return `The cloud API did not answer within ${seconds} s (${networkCause(error.message)}). Try again shortly; if it persists, the bot operator should check VS_API_URL and the network.`;
    case 'no_connection':
      return 'The bot has too many requests waiting on the cloud API right now, so this one was not sent and nothing changed. Try again in a moment.';
    case 'bad_response':
      // Why, in the client's own words (too large, not valid JSON/XML, an unknown shape); never the API's body.
      return `The cloud API failed: its answer could not be read (${error.message.replace(/^the cloud API /, 'it ')})${apiSaid}. Try again in a minute; if it persists, contact the cloud provider's support.`;
    case 'server':
    default:
      return `The cloud API failed${error.status ? ` (HTTP ${error.status})` : ''}${apiSaid}. Try again in a minute; if it persists, contact the cloud provider's support.`;
  }
}

/**
 * A change whose call timed out, broke off or got an unreadable or 5xx answer
 * may have been applied all the same: the user must check, not retry blindly
 * (a second add-disk would add a second disk).
 */
export function changeFailureMessage(error: unknown, subject: Subject, timeoutMs: number): string {
  if (isCloudError(error) && !mayHaveApplied(error)) return cloudErrorMessage(error, subject, timeoutMs);
  const seconds = Math.round(timeoutMs / 100) / 10;
  const what = !isCloudError(error)
    ? 'Something went wrong on our side during the change'
    : error.kind === 'timeout'
      ? `The cloud API did not answer within ${seconds} s`
      : error.kind === 'network'
        ? `The cloud API did not answer (${networkCause(error.message)})`
        : error.kind === 'bad_response'
          ? 'The cloud API failed: its answer could not be read'
          : `The cloud API failed${error.status ? ` (HTTP ${error.status})` : ''}`;
  return `${what}, so the change may or may not have been applied. Check ${subjectName(subject)} and \`/vs audit\` before trying again.`;
}


/** "could not connect to the cloud API (ECONNREFUSED)" → "could not connect, ECONNREFUSED". */
function networkCause(message: string): string {
  return message.replace(/^the /, '').replace(/ to the cloud API/, '').replace(/ \(([A-Z_0-9]+)\)$/, ', $1');
}
