import { IN_FLIGHT, isInFlight, OUTCOMES, type ChangeOutcome, type FollowStatus, type Outcome } from '../store';

// One outcome, told the same everywhere (docs/product.md): the vocabulary every place that shows a change uses (its
// message, the form's window, the approval request, the Home tab, `/vs audit` and its filters, Details, the audit
// channel, CSV exports, metrics, workflow steps), each outcome with its sign (a Slack emoji code) and its meaning.
// The store keeps the words (src/store/audit.ts: it imports nothing of ours); the signs and what reads as what are
// here, once. ✅ is `done`'s alone: nothing else may look finished.

export { OUTCOMES, type Outcome } from '../store';

/** Each outcome's sign, as a Slack emoji code: ✋ ⛔ 🚫 ↩️ ⌛ 🕓 🔄 ✅ ❌ ⏹️ ❓. */
export const OUTCOME_SIGNS: Readonly<Record<Outcome, string>> = {
  requested: ':raised_hand:',
  refused: ':no_entry:',
  denied: ':no_entry_sign:',
  withdrawn: ':leftwards_arrow_with_hook:',
  expired: ':hourglass:',
  scheduled: ':clock4:',
  running: ':arrows_counterclockwise:',
  done: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':black_square_for_stop:',
  unknown: ':question:',
};

/** What each outcome means, as docs/product.md's table says it. */
export const OUTCOME_MEANINGS: Readonly<Record<Outcome, string>> = {
  requested: 'waiting for a second person',
  refused: 'stopped before anything was sent: role, channel, freeze, limit, invalid input, or a target not in a state that allows it',
  denied: 'a second person said no',
  withdrawn: 'the request was taken back',
  expired: 'nobody decided in time',
  scheduled: 'the cloud accepted it and has not started it',
  running: 'its transactions are running',
  done: 'the cloud finished it, and the target was read again',
  failed: 'the cloud API refused it, or a transaction of it failed in the cloud',
  cancelled: 'its transaction was cancelled in the cloud',
  unknown: 'no longer followed, its answer unreadable, or its instance died: look in the control panel',
};

/** Outcomes after which nothing more happens to the change (metrics count a record once it has one). */
export const FINAL_OUTCOMES: readonly Outcome[] = ['requested', 'refused', 'denied', 'withdrawn', 'expired', 'done', 'failed', 'cancelled', 'unknown'];

export const isOutcome = (word: string): word is Outcome => OUTCOMES.some((o) => o === word);

/** The outcome a record's kept state reads as: a change in flight (sent, or approved and about to be) is `running`. */
export function outcomeOf(kept: string): Outcome {
  if (isInFlight(kept)) return 'running';
  return isOutcome(kept) ? kept : 'unknown';
}

/** The states a record keeps that read as `outcome` (what `/vs audit <outcome>` asks the store for). */
export function keptAs(outcome: Outcome): ChangeOutcome[] {
  return outcome === 'running' ? ['running', ...IN_FLIGHT] : [outcome];
}

/** Whether a record's outcome is final: counted (vs_chatops_changes_total) when it gets one. */
export const isFinal = (kept: ChangeOutcome): boolean => FINAL_OUTCOMES.some((o) => o === kept);

/** Where a followed change stands (src/follow), as an outcome: pending is still `scheduled`, complete is `done`. */
export const FOLLOWED_AS: Readonly<Record<FollowStatus, Outcome>> = {
  scheduled: 'scheduled',
  pending: 'scheduled',
  running: 'running',
  complete: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  unknown: 'unknown',
};

/** An outcome with its sign: ":x: failed". */
export const signed = (outcome: Outcome): string => `${OUTCOME_SIGNS[outcome]} ${outcome}`;
