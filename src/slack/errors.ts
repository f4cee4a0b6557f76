// Failures of the Slack side that are ours, not the user's: each a small
// class with a stable `code` (as bolt-js/src/errors.ts), so that the listener
// wrapper logs and answers them apart from a crash.

export const SlackErrorCode = {
  /** A listener ran without the middleware its registration puts before it: a wiring bug, found before anything was done. */
  MiddlewareMissing: 'vs_slack_middleware_missing',
} as const;

export class MiddlewareMissingError extends Error {
  override readonly name = 'MiddlewareMissingError';
  readonly code = SlackErrorCode.MiddlewareMissing;
  constructor(readonly middleware: string) {
    super(`the ${middleware} middleware did not run before this listener`);
  }
}

export function isMiddlewareMissing(error: unknown): error is MiddlewareMissingError {
  return error instanceof MiddlewareMissingError;
}
