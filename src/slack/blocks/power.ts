import {
  isBackupState,
  factNumber,
  POWER_CHOICE_NAMES,
  targetTitle,
  type ChangeAction,
  type PowerAction,
  type PowerChoice,
  type PowerState,
  type RunningTransaction,
  type ServerState,
  type TargetState,
} from '../../changes';
import { unusableText } from './backups';
import { reasonLine, type FollowedWords } from './followed';
import { oneLine, safe } from './mrkdwn';
import { transactionWords } from './transactions';

// The words of the power actions (docs/product.md, Power actions): a server's
// state, the form's choices, a transaction that holds a server, the refusals,
// and the result posted to the channel (followed to its end: followed.ts).

/** A server's power, as a sentence says it: "VS 42 is …". */
export const POWER_STATE_WORDS: Record<PowerState, string> = {
  on: 'on',
  off: 'off',
  recovery: 'on, in the recovery image',
  suspended: 'suspended by the provider',
};

/** The form's choices (`power_action`), as its menu shows them. */
export const POWER_CHOICE_WORDS: Record<PowerChoice, string> = {
  startup: 'Start',
  shutdown: 'Shut down (graceful)',
  reboot: 'Reboot',
  reboot_recovery: 'Reboot into the recovery image',
  stop: 'Stop (forced power-off)',
};

/** The power form's submit button, for the action it was opened with. */
export const POWER_SUBMIT_WORDS: Record<PowerChoice, string> = {
  startup: 'Start',
  shutdown: 'Shut down',
  reboot: 'Reboot',
  reboot_recovery: 'Reboot',
  stop: 'Force stop',
};

/** Each power action as a verb: "there is nothing to shut down". */
const VERBS: Record<PowerAction, { verb: string; done: string }> = {
  power_start: { verb: 'start', done: 'started' },
  power_shutdown: { verb: 'shut down', done: 'shut down' },
  power_reboot: { verb: 'reboot', done: 'rebooted' },
  power_stop: { verb: 'stop', done: 'stopped' },
};

/** A server locked by a running transaction (docs/product.md, Errors the user sees), as mrkdwn. */
export function lockedText(vsId: number, transaction: RunningTransaction | null | undefined): string {
  const which = transaction ? `: ${transactionWords(transaction.action)}` : '';
  return `Busy: a transaction is running on ${targetTitle({ kind: 'vs', id: vsId })}${which}. Nothing was sent; try again when it has finished.`;
}

/** A change its target's state does not allow (a power action, with the server's state; a restore, with why the backup cannot be used), as mrkdwn. */
export function unfitText(targetId: number, action: ChangeAction, state: TargetState): string {
  if (isBackupState(state)) return `${unusableText(targetId, state.usability)} Nothing was sent.`;
  const vsId = targetId;
  const words = Object.hasOwn(VERBS, action) ? VERBS[action as PowerAction] : undefined;
  const why = !words
    ? 'it cannot take this change now'
    : state.power === 'suspended'
      ? `it cannot be ${words.done} from here`
      : `there is nothing to ${words.verb}`;
  return `${targetTitle({ kind: 'vs', id: vsId })} is ${POWER_STATE_WORDS[state.power]}: ${why}. Nothing was sent.`;
}

/** The server as the form shows it: its id, its label, its state. */
export function serverLine(vsId: number, state: ServerState): string {
  const label = state.label ? ` · ${safe(oneLine(state.label), 120)}` : '';
  return `*${targetTitle({ kind: 'vs', id: vsId })}*${label} · ${POWER_STATE_WORDS[state.power]}`;
}

/** A power action the cloud accepted, from the facts its row kept: what was asked (and why), and what done means. */
export const POWER_FOLLOWED_WORDS: FollowedWords = {
  about: (facts, requestedBy) => {
    const choice = POWER_CHOICE_NAMES.find((c) => c === facts.powerAction);
    const vsId = factNumber(facts.vsId) ?? 0;
    const label = typeof facts.label === 'string' && facts.label ? ` (${safe(oneLine(facts.label), 120)})` : '';
    const lines = [`*${choice ? POWER_CHOICE_WORDS[choice] : 'Power action'}* of ${targetTitle({ kind: 'vs', id: vsId })}${label}`];
    if (typeof facts.reason === 'string') lines.push(...reasonLine(facts.reason, requestedBy));
    return lines;
  },
  done: (facts, state) => {
    const title = targetTitle({ kind: 'vs', id: factNumber(facts.vsId) ?? 0 });
    const power =
      state?.serverBooted === true
        ? state.serverRecovery === true
          ? POWER_STATE_WORDS.recovery
          : POWER_STATE_WORDS.on
        : state?.serverBooted === false
          ? POWER_STATE_WORDS.off
          : null;
    return power ? `${title} is ${power}, and unlocked` : `${title} is unlocked`;
  },
  // Nothing is left by a power action: the server as read again (the message says it) is all there is.
  left: () => null,
};
