import { factNumber, type Fact } from '../../changes';
import type { FollowedChange, FollowStatus } from '../../store';
import { transactionText, transactionWords } from './transactions';
import { code, context, fallback, header, oneLine, safe, section, slackTime, userMention, withSandbox, type Rendered } from './mrkdwn';

// A change the cloud accepted, as its message shows it while it is followed
// (docs/product.md, Following a change to its end): what was asked (its
// form's words, from the facts its row of changes kept), where it stands
// (scheduled, running the transaction in words, done with its target as read
// again, failed in the cloud with the step and where to look, cancelled, or no
// longer followed), and who asked and approved. The same message is posted
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

const MARKS: Readonly<Record<FollowStatus, string>> = {
  scheduled: ':hourglass:',
  pending: ':hourglass:',
  running: ':hourglass_flowing_sand:',
  complete: ':white_check_mark:',
  failed: ':x:',
  cancelled: ':white_circle:',
  unknown: ':grey_question:',
};

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
        section(`${MARKS[change.status]} ${statusWords(change, r, true)}`),
        context([...people, `accepted ${slackTime(change.acceptedAtMs)}`, ...transactions].join(' · ')),
      ],
      r.sandbox,
    ),
  };
}

/** The reply in the message's thread once the change ended: both people mentioned, so that both are notified. */
export function renderFollowEnded(change: FollowView, r: FollowRendering): Rendered {
  const people = [change.requestedBy, ...(change.approvedBy && change.approvedBy !== change.requestedBy ? [change.approvedBy] : [])].map(userMention);
  const line = `${people.join(' ')} ${MARKS[change.status]} ${r.title} · ${r.targetTitle}: ${statusWords(change, r, true)}`;
  return { text: plainStatus(change, r), blocks: withSandbox([section(line)], r.sandbox) };
}

/** The notification's text: where it stands, without mrkdwn. */
function plainStatus(change: FollowView, r: FollowRendering): string {
  return fallback(`${r.title} · ${r.targetTitle}: ${statusWords(change, r, false).replace(/\*/g, '')}`, r.sandbox);
}

/** Where it stands, in words; `rich`: with the links and the transaction's action in code where it has no words. */
function statusWords(change: FollowView, r: FollowRendering, rich: boolean): string {
  const step = change.step ? (rich ? transactionWords(change.step) : transactionText(change.step)) : null;
  const look = rich ? whereToLook(change, r) : 'Check it in the control panel.';
  switch (change.status) {
    case 'scheduled':
      return r.followed
        ? '*Scheduled*: the cloud accepted the change and runs it now; this message follows it to its end.'
        : '*Scheduled*: the cloud accepted the change and runs it now.';
    case 'pending':
      return `*Scheduled* · ${step ?? 'its transaction'} is waiting to start.`;
    case 'running':
      return `*Running* · ${step ?? 'its transactions'}…`;
    case 'complete':
      return `*Done* · ${r.words.done(change.subject.facts, change.finalState)}.`;
    case 'failed':
      return `*Failed in the cloud*${step ? ` while ${step}` : ''}. ${look}`;
    case 'cancelled':
      return `*Cancelled* in the cloud${step ? ` while ${step}` : ''}. ${look}`;
    case 'unknown':
      return `*Still running after ${minutes(r.maxMinutes)}*: no longer followed; check the control panel${rich ? `: ${panelLink(change, r)}` : ''}.`;
  }
}

const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/** Where to look when the cloud did not finish it: the server's page in the control panel, whose transaction log says why. */
function whereToLook(change: FollowView, r: FollowRendering): string {
  return `Its transactions in the control panel say why: ${panelLink(change, r)}.`;
}

/** The server's page under VS_PANEL_URL, or the panel itself when the server is not known. */
function panelLink(change: FollowView, r: FollowRendering): string {
  const vsId = factNumber(change.subject.facts.vsId) ?? change.subject.serverId;
  const base = r.panelUrl.replace(/\/+$/, '');
  return vsId === null ? `<${base}|the control panel>` : `<${base}/virtual_machines/${vsId}|VS ${vsId}>`;
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
