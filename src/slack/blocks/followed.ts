import { factNumber, FOLLOWED_AS, OUTCOME_SIGNS, targetTitle, type Fact } from '../../changes';
import type { FollowedChange, FollowStatus } from '../../store';
import { stepText, stepWords } from './transactions';
import { code, context, fallback, header, oneLine, safe, section, slackTime, userMention, withSandbox, type Rendered } from './mrkdwn';

// A change the cloud accepted, as its message shows it while it is followed
// (docs/product.md, Following a change to its end; One outcome, told the same
// everywhere): what was asked (its form's words, from the facts its row of
// changes kept), where it stands in the one vocabulary, each with its sign
// (scheduled, running the transaction in words, done with its target as read
// again; failed or cancelled in the cloud saying why, what now and what was
// left: the step in words, the server read again, what the change left
// behind, its transactions in the control panel; or no longer followed), and
// who asked and approved. The same message is posted
// when the cloud accepts the change and updated in place as it goes; when it
// ends, a reply in its thread mentions both people. The cloud's raw log is
// never here: nothing of it reaches the facts or the store.

export type Facts = Readonly<Record<string, Fact>>;

/** What a change form's row says of its followed change (src/slack/blocks/change-forms.ts). */
export interface FollowedWords {
  /** Lines under the title: what was asked, from the facts (a reason said to be the requester's); ages count to `acceptedAtMs`. */
  about(facts: Facts, requestedBy: string, acceptedAtMs: number): string[];
  /** What its target shows once done, from the facts and the final read: "disk 110 is built and unlocked". */
  done(facts: Facts, state: Facts | null): string;
  /**
   * What a change that did not finish (failed, cancelled, no longer followed) left behind, as the final read shows it,
   * with what to do about it: "disk 110 (50 GB) exists but is not built: remove it in the control panel"; null: nothing.
   */
  left(facts: Facts, state: Facts | null): string | null;
}

/** What the message shows of a followed change: its store row (or, before it is stored, what the door accepted). */
export type FollowView = Pick<
  FollowedChange,
  'action' | 'subject' | 'requestedBy' | 'approvedBy' | 'status' | 'step' | 'transactionIds' | 'finalState' | 'acceptedAtMs' | 'endedAtMs'
>;

export interface FollowRendering {
  /** The change's title, from its form ("Add disk"). */
  title: string;
  /** "VS 42", "Backup 9". */
  targetTitle: string;
  words: FollowedWords;
  /** The control panel's base URL: where to look when it failed. */
  panelUrl: string;
  /** VS_FOLLOW_MAX_MIN: said when it is no longer followed. */
  maxMinutes: number;
  /** False when nothing follows it (no follower composed): the message does not promise updates. */
  followed: boolean;
  sandbox: boolean;
}

/** Each status's sign: its outcome's (src/changes/outcome.ts), ✅ for done alone. */
const sign = (status: FollowStatus): string => OUTCOME_SIGNS[FOLLOWED_AS[status]];

/** The message of a followed change, as it stands. */
export function renderFollowedChange(change: FollowView, r: FollowRendering): Rendered {
  const facts = change.subject.facts;
  const people = [`asked by ${userMention(change.requestedBy)}`, ...(change.approvedBy ? [`approved by ${userMention(change.approvedBy)}`] : [])];
  const transactions =
    change.transactionIds.length > 0 ? [`transaction${change.transactionIds.length > 1 ? 's' : ''} ${change.transactionIds.join(', ')}`] : [];
  return {
    text: plainStatus(change, r),
    blocks: withSandbox(
      [
        header(`${r.title} · ${r.targetTitle}`),
        section(r.words.about(facts, change.requestedBy, change.acceptedAtMs).join('\n')),
        section(`${sign(change.status)} ${statusWords(change, r, true)}`),
        context([...people, `accepted ${slackTime(change.acceptedAtMs)}`, ...transactions].join(' · ')),
      ],
      r.sandbox,
    ),
  };
}

/** The reply in the message's thread once the change ended: both people mentioned, so that both are notified. */
export function renderFollowEnded(change: FollowView, r: FollowRendering): Rendered {
  const people = [change.requestedBy, ...(change.approvedBy && change.approvedBy !== change.requestedBy ? [change.approvedBy] : [])].map(userMention);
  const line = `${people.join(' ')} ${sign(change.status)} ${r.title} · ${r.targetTitle}: ${statusWords(change, r, true)}`;
  return { text: plainStatus(change, r), blocks: withSandbox([section(line)], r.sandbox) };
}

/** The notification's text: where it stands, without mrkdwn. */
function plainStatus(change: FollowView, r: FollowRendering): string {
  return fallback(`${r.title} · ${r.targetTitle}: ${statusWords(change, r, false).replace(/\*/g, '')}`, r.sandbox);
}

/** Where it stands, in words; `rich`: with the links and the transaction's action in code where it has no words. */
function statusWords(change: FollowView, r: FollowRendering, rich: boolean): string {
  const step = change.step ? (rich ? stepWords(change.step, change.subject) : stepText(change.step, change.subject)) : null;
  switch (change.status) {
    case 'scheduled':
      return r.followed
        ? '*Scheduled*: the cloud accepted the change and has not started it yet; this message follows it to its end.'
        : '*Scheduled*: the cloud accepted the change and has not started it yet.';
    case 'pending':
      return `*Scheduled* · ${step ?? 'its transaction'} is waiting to start.`;
    case 'running':
      return `*Running* · ${step ?? 'its transactions'}…`;
    case 'complete':
      return `*Done* · ${r.words.done(change.subject.facts, change.finalState)}.`;
    case 'failed':
      return `*Failed* in the cloud: ${step ?? 'its transaction'} failed. ${afterwards(change, r, rich)}`;
    case 'cancelled':
      return `*Cancelled* in the cloud: ${step ?? 'its transaction'} was cancelled. ${afterwards(change, r, rich)}`;
    case 'unknown':
      return `*Unknown*: still running after ${minutes(r.maxMinutes)}, no longer followed. ${afterwards(change, r, rich)}`;
  }
}

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/**
 * What now, and what was left, once a change did not finish (docs/product.md, One outcome: a failure says why, what
 * now and what was left): the server as read again, what the change left behind, and its transactions in the control
 * panel, whose log says why.
 */
function afterwards(change: FollowView, r: FollowRendering, rich: boolean): string {
  const facts = change.subject.facts;
  const vsId = factNumber(facts.vsId) ?? change.subject.serverId;
  const left = r.words.left(facts, change.finalState);
  const sentences = [serverNowWords(vsId, change.finalState), left, rich ? `Its transactions in the control panel say why: ${panelLink(vsId, r)}` : null];
  return sentences
    .filter((s): s is string => s !== null)
    .map((s) => `${s.charAt(0).toUpperCase()}${s.slice(1)}.`)
    .join(' ');
}

/** The server as read again at the end: "VS 42 is on and unlocked"; null when the change names no server. */
export function serverNowWords(vsId: number | null, state: Facts | null): string | null {
  if (vsId === null) return null;
  const title = targetTitle({ kind: 'vs', id: vsId });
  if (state === null || state.serverUnread === true || state.serverLocked === undefined)
    return `${title} could not be read again: check it in the control panel`;
  const power =
    state.serverBooted === true ? (state.serverRecovery === true ? 'on, in the recovery image' : 'on') : state.serverBooted === false ? 'off' : null;
  const lock = state.serverLocked === true ? 'still locked by a transaction' : 'unlocked';
  return `${title} is ${power ? `${power} and ` : ''}${lock}`;
}

/** The server's transactions under VS_PANEL_URL (in local mode, the sandbox's page of them), or the panel itself when no server is known. */
function panelLink(vsId: number | null, r: FollowRendering): string {
  const base = r.panelUrl.replace(/\/+$/, '');
  return vsId === null
    ? `<${base}|the control panel>`
    : `<${base}/virtual_machines/${vsId}/transactions|transactions of ${targetTitle({ kind: 'vs', id: vsId })}>`;
}

/** Free text from a person, on one line, quoted and said to be theirs, so it cannot pass for the bot's own lines; none when blank. */
export function reasonLine(reason: string, requestedBy: string): string[] {
  return reason.trim() ? [`Reason given by ${userMention(requestedBy)}: “${safe(oneLine(reason).trim(), 500)}”`] : [];
}

/** A fact as text in mrkdwn: escaped and cut, or "_none_". */
export function factText(value: Fact | undefined, max = 600): string {
  return typeof value === 'string' && value.trim() !== '' ? safe(oneLine(value), max) : '_none_';
}

/** A fact as inline code, or "_none_". */
export function factCode(value: Fact | undefined, max = 200): string {
  return typeof value === 'string' && value !== '' ? code(value, max) : '_none_';
}
