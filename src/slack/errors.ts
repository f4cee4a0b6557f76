import { CodedError } from '../errors';

// Failures of the Slack side that are ours, not the user's: each a small
// class with a stable `code` (src/errors.ts), so that the listener wrapper
// logs and answers them apart from a crash.

export const SlackErrorCode = {
  /** A listener ran without the middleware its registration puts before it: a wiring bug, found before anything was done. */
  MiddlewareMissing: 'SLACK_MIDDLEWARE_MISSING',
} as const;

export class MiddlewareMissingError extends CodedError {
  override readonly name = 'MiddlewareMissingError';
  readonly code = SlackErrorCode.MiddlewareMissing;
  constructor(readonly middleware: string) {
    super(`the ${middleware} middleware did not run before this listener`);
  }
}

export function isMiddlewareMissing(error: unknown): error is MiddlewareMissingError {
  return error instanceof MiddlewareMissingError;
}
