import type { KnownBlock, ModalView, SectionBlock } from '@slack/types';
import { z } from 'zod';
import { isChangeAction, OUTCOME_SIGNS, outcomeOf, readFrozenDetail, recordTargetTitle, type ChangeAction, type Outcome, targetTitle } from '../../changes';
import type { AuditRecord, RecordedAction } from '../../store';
import { AuditFilter } from '../../changes/audit-filter';
import { requestText } from '../../cloud/prepared';
import { CHANGE_FORMS } from './change-forms';
import {
  channelMention,
  code,
  context,
  fallback,
  header,
  isIsoTime,
  LIMITS,
  mrkdwn,
  oneLine,
  preformattedBlock,
  type Rendered,
  safe,
  section,
  slackTime,
  truncate,
  userMention,
  withSandbox,
} from './mrkdwn';
import { buttonOutOfDate, pageOf, pager } from './pages';
import { acknowledgeBlock, breakGlassWhy, recordBreakGlassNote, renderBreakGlassAuditPost } from './break-glass';
import { recordOnCallNote } from './on-call';
import { transactionWords } from './transactions';

// The audit trail as people read it (docs/product.md, Audit; App Home): one line per record saying when, who, what
// in words, on what and how it ended, with the why where there is one; people as mentions and times as Slack's
// date tokens, never raw ids or ISO strings. The exact request sits behind a Details button, never inline. Used by
// `/vs audit` (paged in place, with Export CSV), the Home tab and the posts to VS_AUDIT_CHANNEL.

export const AUDIT_DETAILS_ACTION_ID = 'audit_details';
export const AUDIT_PAGE_ACTION_IDS = { prev: 'audit_page_prev', next: 'audit_page_next' } as const;
export const AUDIT_EXPORT_ACTION_ID = 'audit_export';

/** Records shown per page of `/vs audit`: a page of sections, each with its Details button, fits a message. */
export const AUDIT_PAGE_SIZE = 10;

/** What a filter of `/vs audit` by outcome lists, in words ("No audit record matches: failed changes."). */
const OUTCOME_FILTER_WORDS: Readonly<Record<Outcome, string>> = {
  requested: 'requests for a second person',
  refused: 'refused attempts (stopped before anything was sent)',
  denied: 'requests a second person denied',
  withdrawn: 'withdrawn requests',
  expired: 'expired requests',
  scheduled: 'scheduled changes',
  running: 'running changes',
  done: 'done changes',
  failed: 'failed changes',
  cancelled: 'cancelled changes',
  unknown: 'changes of unknown outcome',
};

/** The actions on record that are not changes of the table, in words. */
const CONTROL_WORDS: Readonly<Record<Exclude<RecordedAction, ChangeAction>, string>> = {
  freeze: 'Freeze changes',
  unfreeze: 'Unfreeze changes',
  breakglass: 'Break glass',
  breakglass_end: 'End break glass',
  breakglass_ack: 'Acknowledge a break-glass change',
  watch: 'Watch',
  unwatch: 'Unwatch',
  watch_snooze: 'Snooze a watch',
  agent_token: 'Make an agent token',
  agent_revoke: 'Revoke an agent token',
};

/** What was done, in words: a change's title ("Add disk"), or the freeze's. */
export function actionTitle(action: RecordedAction): string {
  return isChangeAction(action) ? CHANGE_FORMS[action].title : (CONTROL_WORDS[action] ?? safe(oneLine(action), 40));
}

/** Where a form was opened from before it named its target (the needs middleware's record of a refusal). */
const NO_TARGET_YET: Readonly<Record<string, string>> = { home: 'from the Home tab', shortcut: 'from a shortcut', unknown: 'no target given' };

/** What a record is about, in words ("VS 42", "Backup 9"); the freeze is about every change and names nothing. */
function targetWords(target: string, label?: string | null): string | null {
  const title = recordTargetTitle(target, label);
  if (title !== null) return title;
  if (target === 'changes') return null;
  return Object.hasOwn(NO_TARGET_YET, target) ? NO_TARGET_YET[target]! : code(target, 40);
}

/** Who a record is about: a person, or, for a workflow step's request before anyone claimed it, the workflow. */
function actor(r: AuditRecord): string {
  if (r.userId === '') return 'a workflow';
  // An agent's own attempt (asked, refused): "agent `laptop` for @Ada" (docs/product.md, Agents ask, people decide).
  return r.agent && (r.requestedBy ?? r.userId) === r.userId ? agentFor(r.agent, r.userId) : userMention(r.userId);
}

const agentFor = (agent: string, owner: string) => `agent ${code(agent, 32)} for ${userMention(owner)}`;

/** The record's own text in one line, escaped: ours, though it may quote the cloud API's messages. */
const quoted = (text: string, max = 150) => safe(oneLine(text), max);

/** A string kept in a record's parameters, or null. */
const paramText = (r: AuditRecord, key: string): string | null => (typeof r.params[key] === 'string' ? r.params[key] : null);

/**
 * Why a record ended as it did, from what it holds: the people and times of its own fields shown as mentions and
 * date tokens; its detail text only where it names no one (the audit's words name people by id).
 */
function why(r: AuditRecord): string {
  const outcome = outcomeOf(r.outcome);
  const asker = (by: string) => (r.agent ? agentFor(r.agent, by) : userMention(by));
  const asked = r.requestedBy && r.requestedBy !== r.userId ? ` · asked by ${asker(r.requestedBy)}` : '';
  const how = outcome === 'denied' ? 'denied' : outcome === 'withdrawn' ? 'withdrawn' : 'approved';
  const decided = r.decidedBy && r.decidedBy !== r.userId ? ` · ${how} by ${userMention(r.decidedBy)}` : '';
  const workflow = r.workflowExecutionId ? ` · workflow ${code(r.workflowExecutionId, 40)}` : '';
  // A step of an approval, or one approved and about to be sent: who asked and decided, never the audit's words, which
  // name people by id.
  if (outcome === 'requested' || outcome === 'denied' || outcome === 'withdrawn' || outcome === 'expired' || r.outcome === 'approved')
    return `${asked}${decided}${workflow}`;
  const opened = breakGlassWhy(r);
  if (opened !== null) return opened;
  if (r.action === 'freeze' && outcome === 'done') {
    const reason = paramText(r, 'reason');
    return reason ? ` · “${quoted(reason, 200)}”` : '';
  }
  if (r.action === 'unfreeze' && outcome === 'done') {
    const by = paramText(r, 'frozen_by');
    const at = paramText(r, 'frozen_at');
    return by ? ` · lifted the freeze ${userMention(by)} set${at ? ` ${slackTime(at)}` : ''}` : '';
  }
  const frozen = outcome === 'refused' && r.detail ? readFrozenDetail(r.detail) : null;
  if (frozen) return ` · changes were frozen by ${userMention(frozen.by)} ${slackTime(frozen.at)}: “${quoted(frozen.reason, 120)}”${workflow}`;
  return `${r.detail ? ` · ${quoted(r.detail)}` : ''}${asked}${decided}${workflow}${transactionsOf(r)}`;
}

/**
 * A record's outcome in words (docs/product.md, One outcome, told the same everywhere): the word of the vocabulary,
 * and for a change the cloud accepted and ran, where it ended: "failed in the cloud while building a disk". The
 * API's status code is never the headline (Details has it).
 */
export function outcomeWords(r: Pick<AuditRecord, 'outcome' | 'cloudOutcome' | 'cloudStep'>): string {
  const outcome = outcomeOf(r.outcome);
  const step = r.cloudStep ? ` while ${transactionWords(r.cloudStep)}` : '';
  if (outcome === 'failed' && r.cloudOutcome === 'failed') return `*failed* in the cloud${step}`;
  if (outcome === 'cancelled') return `*cancelled* in the cloud${step}`;
  if (outcome === 'unknown' && r.cloudOutcome === 'unknown') return '*unknown*: no longer followed, check the control panel';
  if (outcome === 'requested') return '*requested*: a second person must approve it';
  return `*${outcome}*`;
}

/**
 * One record, one line, as people read it: "✅ today at 14:03 · @ada · *Add disk* · VS 42 → *done* · disk 7 (10 GB) on
 * VS 42 · transaction 12 · #incident": its outcome's sign first, ✅ for `done` alone. `where`: the channel it came from
 * is said (off where the list is one person's own).
 */
export function recordLine(r: AuditRecord, { where = true }: { where?: boolean } = {}): string {
  const on = targetWords(r.target, r.serverLabel);
  const channel = where && r.channelId ? ` · ${channelMention(r.channelId)}` : '';
  return (
    `${OUTCOME_SIGNS[outcomeOf(r.outcome)]} ${slackTime(r.at)} · ${actor(r)} · *${actionTitle(r.action)}*${on ? ` · ${on}` : ''}` +
    ` → ${outcomeWords(r)}${why(r)}${recordOnCallNote(r)}${recordBreakGlassNote(r)}${channel}`
  );
}

/** The transactions that ran a change, once followed: " · transactions 9, 10". */
function transactionsOf(r: AuditRecord): string {
  const ids = r.transactionIds ?? [];
  return ids.length > 0 ? ` · transaction${ids.length > 1 ? 's' : ''} ${ids.slice(0, 10).join(', ')}` : '';
}

/** A record as a section of its line, with the Details button that shows the rest (the exact request among it). */
export function recordSection(r: AuditRecord, options?: { where?: boolean }): SectionBlock {
  return {
    type: 'section',
    text: mrkdwn(truncate(recordLine(r, options), LIMITS.sectionText)),
    accessory: { type: 'button', action_id: AUDIT_DETAILS_ACTION_ID, text: { type: 'plain_text', text: 'Details' }, value: String(r.id) },
  };
}

/** A filter of `/vs audit` in words: "VS 42", "<@U1>", "failed changes". */
export function filterWords(filter: AuditFilter): string {
  switch (filter.kind) {
    case 'vs':
    case 'backup':
      return targetTitle({ kind: filter.kind, id: filter.id });
    case 'person':
      return userMention(filter.userId);
    case 'outcome':
      return OUTCOME_FILTER_WORDS[filter.outcome];
    case 'breakglass':
      return 'changes made under break glass';
  }
}

/**
 * What the buttons of a `/vs audit` list carry: how many of the latest records it lists (`n`), its filter (`f`), the
 * page to show (`p`) and the newest record of the first listing (`a`), so that its pages stay the same while new
 * records are written. A value that does not parse is a button out of date (or one made by hand).
 */
const AuditListValue = z.object({
  n: z.number().int().min(1).max(1000),
  p: z.number().int().min(1).max(1000),
  a: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  f: AuditFilter.optional(),
});
export type AuditListValue = z.infer<typeof AuditListValue>;

/** An Export CSV button's value: the filter of the list it was on (`f`); the export is of every record that matches. */
const AuditExportValue = z.object({ f: AuditFilter.optional() });
export type AuditExportValue = z.infer<typeof AuditExportValue>;

const parsed = <T>(schema: z.ZodType<T>, value: string): T | null => {
  try {
    const result = schema.safeParse(JSON.parse(value));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
};

export const parseAuditListValue = (value: string): AuditListValue | null => parsed(AuditListValue, value);
export const parseAuditExportValue = (value: string): AuditExportValue | null => parsed(AuditExportValue, value);

export interface AuditListing {
  /** The latest records matching the filter, newest first: as many as the list shows in all (at most `limit`). */
  records: readonly AuditRecord[];
  limit: number;
  filter: AuditFilter | undefined;
  /** 1-based; clamped into range. */
  page: number;
  /** The newest record of the first listing (0 when there was none). */
  anchorId: number;
  sandbox: boolean;
}

/** `/vs audit`: one page of the latest records, with "page n of m", Prev/Next and Export CSV. */
export function renderAuditList(o: AuditListing): Rendered {
  const about = o.filter ? ` · ${filterWords(o.filter)}` : '';
  const title = header('Audit trail');
  if (o.records.length === 0) {
    const none = o.filter ? `No audit record matches: ${filterWords(o.filter)}.` : 'No audit records yet: nobody has attempted a change.';
    return { text: fallback(none, o.sandbox), blocks: withSandbox([title, section(none)], o.sandbox) };
  }
  const { page, pages, shown } = pageOf(o.records, o.page, AUDIT_PAGE_SIZE);
  const counted = `latest ${o.records.length} record${o.records.length === 1 ? '' : 's'}${about}`;
  // A change made under break glass that nobody reviewed yet has its Acknowledge button under its line.
  const blocks: KnownBlock[] = [title, context(`${counted} · page ${page} of ${pages}`), ...shown.flatMap((r) => [recordSection(r), ...withAcknowledge(r)])];
  const list = (to: number) => JSON.stringify({ n: o.limit, p: to, a: o.anchorId, ...(o.filter ? { f: o.filter } : {}) });
  const exportAs = { actionId: AUDIT_EXPORT_ACTION_ID, value: JSON.stringify(o.filter ? { f: o.filter } : {}) };
  blocks.push(pager({ blockId: 'audit_pager', ids: AUDIT_PAGE_ACTION_IDS, page, pages, valueOf: list, exportAs }));
  blocks.push(context('Details shows the exact request of a record. Export CSV sends every record that matches to your direct messages with the bot.'));
  return { text: fallback(`Audit trail: ${counted}, page ${page} of ${pages}`, o.sandbox), blocks: withSandbox(blocks, o.sandbox) };
}

/** A record's Details: its line, every field, its parameters, its detail and the exact request, each shown as it is. */
export function renderRecordDetails(r: AuditRecord, sandbox: boolean): ModalView {
  const outcome = outcomeOf(r.outcome);
  const fields = [
    `*Record* ${r.id}`,
    `*Action* ${code(r.action, 40)}`,
    `*Target* ${code(r.target, 40)}`,
    `*Outcome* ${OUTCOME_SIGNS[outcome]} ${outcome}`,
    `*Cloud API status* ${r.apiStatus ?? '—'}`,
    `*Took* ${Math.round(r.durationMs)} ms`,
    ...(r.cloudOutcome ? [`*In the cloud* ${code(r.cloudOutcome, 20)}${r.cloudStep ? ` at ${code(r.cloudStep, 60)}` : ''}`] : []),
    ...(r.transactionIds && r.transactionIds.length > 0 ? [`*Transactions* ${r.transactionIds.slice(0, 20).join(', ')}`] : []),
    ...(r.formerOutcome ? [`*Recorded before as* ${code(r.formerOutcome, 40)}`] : []),
    ...(r.approvalId ? [`*Approval request* ${code(r.approvalId, 60)}`] : []),
    ...(r.workflowExecutionId ? [`*Workflow execution* ${code(r.workflowExecutionId, 60)}`] : []),
    ...(r.agent ? [`*Agent* ${code(r.agent, 32)} for ${userMention(r.requestedBy ?? r.userId)}`] : []),
  ];
  const blocks: KnownBlock[] = [
    section(recordLine(r)),
    { type: 'section', fields: fields.slice(0, LIMITS.fields).map(mrkdwn) },
    section('*Parameters*'),
    preformatted(jsonOf(r.params)),
  ];
  if (r.detail) blocks.push(section('*Detail*'), preformatted(r.detail));
  blocks.push(section(r.apiRequest ? '*The exact request sent to the cloud API*' : '_No request was sent to the cloud API._'));
  if (r.apiRequest) {
    // As it was sent, whole where a message can hold it; a longer one (a change sent without approval is not bounded by
    // what an approval request can show) is whole in the audit's Export CSV.
    const request = requestText(r.apiRequest);
    blocks.push(preformatted(request));
    if (request.length > PREFORMATTED_MAX)
      blocks.push(context('Cut here to fit a message: the Export CSV of `/vs audit` holds the whole request (`request_body`).'));
  }
  return {
    type: 'modal',
    callback_id: AUDIT_DETAILS_ACTION_ID,
    title: { type: 'plain_text', text: truncate(`Record ${r.id}`, LIMITS.modalTitle) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: withSandbox(blocks, sandbox),
  };
}

/** What one preformatted block of a record's Details holds. */
const PREFORMATTED_MAX = 2800;

/** Text shown as it is (preformatted rich text): no mrkdwn, no mention, no link, invisible characters named; cut to a bound. */
function preformatted(text: string): KnownBlock {
  return preformattedBlock(truncate(text, PREFORMATTED_MAX) || ' ');
}

/** Parameters as indented JSON; never throws (cycles, BigInt). */
function jsonOf(params: Record<string, unknown>): string {
  try {
    return JSON.stringify(params, null, 2) ?? '{}';
  } catch {
    return '(the parameters could not be shown)';
  }
}

/** The refusal of a record's Details to someone who may read neither the audit trail nor that record. */
export const RECORD_NOT_YOURS = 'Only admins may read the audit trail; you may see the details of your own records only.';
/** A Details button whose record is gone (older than the retention) or whose value does not parse. */
export const RECORD_UNKNOWN = 'That record is not in the audit trail (it may be older than the retention, VS_AUDIT_RETENTION_DAYS).';
/** The store did not answer a read of the audit trail. */
export const AUDIT_UNREADABLE = 'The audit trail could not be read just now; try again in a minute.';
/** A Prev/Next button of `/vs audit` whose value no longer parses. */
export const AUDIT_BUTTON_OUT_OF_DATE = buttonOutOfDate('/vs audit');

/** One record, as posted to VS_AUDIT_CHANNEL: its line, then what was asked for and the exact request (the channel is the record). */
export function renderAuditPost(r: AuditRecord): Rendered {
  // A break-glass window opened is posted loud, mentioning who would have been asked (docs/product.md, On call).
  const loud = renderBreakGlassAuditPost(r);
  if (loud) return loud;
  const params = paramsLine(r.params, 1500);
  const on = targetWords(r.target, r.serverLabel);
  const request = r.apiRequest
    ? `request: ${code(`${r.apiRequest.method} ${r.apiRequest.path}`, 200)}${r.apiRequest.body === null ? '' : ` ${code(r.apiRequest.body, 1500)}`}`
    : null;
  return {
    text: fallback(`${actionTitle(r.action)}${on ? ` · ${on}` : ''} by ${actor(r)}: ${outcomeOf(r.outcome)}`),
    blocks: [section(recordLine(r)), context(`params: ${params}`, ...(request ? [request] : [])), ...withAcknowledge(r)],
  };
}

/** The Acknowledge button of a break-glass use nobody reviewed yet, as the blocks after its line (none for any other record). */
function withAcknowledge(r: AuditRecord): KnownBlock[] {
  const block = acknowledgeBlock(r);
  return block ? [block] : [];
}

/** Marks a time in the JSON; JSON writes it as `\u0001`, which no text of a record can hold as such. */
const TIME_MARK = '\u0001';

/**
 * Parameters as one compact line of JSON in code spans, about `max` characters at most, with each time in them (a
 * backup's `built_at`, a freeze's `frozen_at`) as Slack's date token between the spans: one clock in the post, the
 * reader's (docs/product.md, One outcome). Never throws (cycles, BigInt).
 */
function paramsLine(params: Record<string, unknown>, max: number): string {
  let json: string;
  try {
    json = JSON.stringify(params, (_key, value: unknown) => (isIsoTime(value) ? `${TIME_MARK}${Date.parse(value)}${TIME_MARK}` : value)) ?? '{}';
  } catch {
    return code('(parameters could not be shown)');
  }
  // Split where the times were: text, epoch ms, text, epoch ms… (the marks come out of JSON escaped).
  const parts = json.split(/"\\u0001(-?\d+)\\u0001"/);
  let left = max;
  const shown: string[] = [];
  for (const [i, part] of parts.entries()) {
    if (left <= 0) {
      shown.push('…');
      break;
    }
    const piece = i % 2 === 1 ? slackTime(Number(part)) : part === '' ? '' : code(part, left);
    left -= i % 2 === 1 ? 24 : piece.length;
    shown.push(piece);
  }
  return shown.join('');
}

/**
 * Several refusals of one user, as one post to VS_AUDIT_CHANNEL (at most one
 * such post per user a minute; each refusal is still its own audit record).
 */
export function renderDenialSummary(userId: string, records: readonly AuditRecord[]): Rendered {
  const counts = new Map<string, number>();
  for (const r of records) {
    const what = `${actionTitle(r.action)}${targetWords(r.target, r.serverLabel) ? ` · ${targetWords(r.target, r.serverLabel)}` : ''}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  const shown = [...counts].slice(0, 20).map(([what, n]) => `${what}${n > 1 ? ` ×${n}` : ''}`);
  const more = counts.size > 20 ? ` and ${counts.size - 20} more` : '';
  const first = records[0] ? slackTime(records[0].at) : '';
  const last = records.length > 0 ? slackTime(records[records.length - 1]!.at) : '';
  return {
    text: fallback(`${userMention(userId)} was refused ${records.length} times`),
    blocks: [
      section(`${OUTCOME_SIGNS.refused} ${userMention(userId)} was *refused ${records.length} times* (${first} to ${last}): ${shown.join(', ')}${more}`),
      context('Refusals are posted at most once per user a minute; `/vs audit refused` lists each one.'),
    ],
  };
}
