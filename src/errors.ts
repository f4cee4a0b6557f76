// One base for the errors the bot throws on purpose (as bolt-js's CodedError and undici's UndiciError): each has a
// stable `code`, which logs, tests and the Slack side match instead of messages. One spelling, held by the type:
// upper snake case, the part of the bot it comes from first (CLOUD_TIMEOUT, STORE_UNAVAILABLE,
// CHANGE_OUTCOME_NOT_RECORDED). Errors of others keep their own codes (Node's ECONNRESET, undici's UND_ERR_*,
// the Slack Web API client's slack_webapi_*). Imports nothing: every part of src/ may throw one.

/** The parts of the bot an error comes from: the first word of its code. */
export type ErrorArea = 'BOT' | 'CONFIG' | 'CLOUD' | 'STORE' | 'CHANGE' | 'SLACK' | 'PAGERDUTY';

export type ErrorCode = `${ErrorArea}_${Uppercase<string>}`;

export abstract class CodedError extends Error {
  abstract readonly code: ErrorCode;
}

/**
 * Settings that stop start-up, each problem with what to do (exit status 2, no stack trace): thrown by src/config.ts,
 * and by the parts that find a setting unusable only when they use it (the store's VS_DB_PATH or DATABASE_URL,
 * VS_APPROVALS against the table of changes).
 */
export class ConfigError extends CodedError {
  override readonly name = 'ConfigError';
  readonly code = 'CONFIG_INVALID';
  constructor(readonly problems: string[]) {
    super(
      `vs-chatops cannot start: ${problems.length} configuration problem${problems.length === 1 ? '' : 's'}:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        '\nSet them in the environment or in .env (see .env.example and README.md).',
    );
  }
}
