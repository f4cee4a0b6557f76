// One base for the errors the bot throws on purpose (as bolt-js's CodedError and undici's UndiciError): each has a
// stable `code`, which logs, tests and the Slack side match instead of messages. One spelling, held by the type:
// upper snake case, the part of the bot it comes from first (CLOUD_TIMEOUT, STORE_UNAVAILABLE,
// CHANGE_OUTCOME_NOT_RECORDED). Errors of others keep their own codes (Node's ECONNRESET, undici's UND_ERR_*,
// the Slack Web API client's slack_webapi_*). Imports nothing: every part of src/ may throw one.

/** The parts of the bot an error comes from: the first word of its code. */
export type ErrorArea = 'BOT' | 'CONFIG' | 'CLOUD' | 'STORE' | 'CHANGE' | 'SLACK';

export type ErrorCode = `${ErrorArea}_${Uppercase<string>}`;

export abstract class CodedError extends Error {
  abstract readonly code: ErrorCode;
}
