import { CodedError } from '../errors';

// Failures of the door that its callers must tell apart from a crash: each a
// small class with a stable `code` (src/errors.ts), so that the Slack side
// says the right thing without matching messages.

export const ChangeErrorCode = {
  /** The cloud API was called, but the outcome could not be written: the change may or may not have been applied. */
  OutcomeNotRecorded: 'CHANGE_OUTCOME_NOT_RECORDED',
} as const;

export class OutcomeNotRecordedError extends CodedError {
  override readonly name = 'OutcomeNotRecordedError';
  readonly code = ChangeErrorCode.OutcomeNotRecorded;
  constructor(options: { cause: unknown }) {
    super('the change was sent to the cloud API but its outcome could not be recorded', options);
  }
}

export function isOutcomeNotRecorded(error: unknown): error is OutcomeNotRecordedError {
  return error instanceof OutcomeNotRecordedError;
}
