import type { KnownBlock } from '@slack/types';
import type { Decision, OnCallNote, Role } from '../../changes';
import type { OnCallAnswer, OnCallEntry, OnCallList } from '../../oncall';
import type { AuditRecord } from '../../store';
import { context, fallback, header, oneLine, type Rendered, safe, section, slackTime, withSandbox } from './mrkdwn';

// Being on call as people read it (docs/product.md, On call): `/vs oncall`, the line of `/vs whoami`, what a refusal
// adds when PagerDuty could not be asked, and what an audit line says of a role that came from a shift. Names of
// schedules, policies and people are PagerDuty's text: shown escaped.

/** "Infrastructure primary" (a schedule), else the escalation policy's name, escaped. */
function throughWhat(shift: Pick<OnCallEntry, 'schedule' | 'escalationPolicy' | 'level'>): string {
  const name = shift.schedule?.name ?? shift.escalationPolicy.name;
  return `${safe(oneLine(name), 80)}${shift.schedule === null || shift.level > 1 ? `, level ${shift.level}` : ''}`;
}

/** "until <time>", or "permanently" for an on-call with no end. */
const untilWhen = (end: string | null) => (end === null ? 'permanently' : `until ${slackTime(end)}`);

/** `/vs whoami`'s line about being on call (docs/product.md: "operator while on call until <time> (PagerDuty: <schedule>)"); null: nothing to say. */
export function onCallLine(note: OnCallNote | undefined): string | null {
  if (note === undefined) return null;
  if (note.state === 'unchecked')
    return ':warning: Whether you are on call could not be checked just now (PagerDuty did not answer): only your configured role counts.';
  return `:pager: *${note.role}* while on call ${untilWhen(note.shift.end)} (PagerDuty: ${throughWhat(note.shift)}).`;
}

/** What a refusal adds when being on call could have given the role but could not be checked. */
export function onCallUncheckedNote(decision: Pick<Decision, 'onCall'>): string {
  return decision.onCall?.state === 'unchecked' ? ' On call could not be checked (PagerDuty did not answer), so only your configured role counted.' : '';
}

/** An audit line's note of a role that came from a shift: " · operator from on call (PagerDuty: Primary)". */
export function recordOnCallNote(r: Pick<AuditRecord, 'onCall'>): string {
  const g = r.onCall;
  if (!g) return '';
  return ` · ${safe(g.role, 20)} from on call (PagerDuty: ${safe(oneLine(g.schedule ?? g.escalationPolicy), 80)})`;
}

export interface OnCallFacts {
  /** Who is on call now, or that PagerDuty could not be read; null: on-call roles are off. */
  list: OnCallList | null;
  /** The role being on call gives. */
  role: Role | null;
  /** The schedules and policies counted, and up to which level. */
  scheduleIds: readonly string[];
  escalationPolicyIds: readonly string[];
  maxLevel: number;
  /** Whether the person asking is on call. */
  mine: OnCallAnswer | null;
  userId: string;
  sandbox: boolean;
}

/** At most this many people are listed; the rest are counted. */
export const ON_CALL_SHOWN = 20;

/** `/vs oncall`: who is on call now and what that grants, and whether the person asking is. */
export function renderOnCall(o: OnCallFacts): Rendered {
  if (o.list === null || o.role === null) {
    const text = 'On-call roles are off here: roles come from the configuration only (the bot operator sets VS_ONCALL_PROVIDER to turn them on).';
    return { text: fallback(text, o.sandbox), blocks: withSandbox([section(text)], o.sandbox) };
  }
  const where = [
    ...(o.scheduleIds.length > 0 ? [`schedule${o.scheduleIds.length > 1 ? 's' : ''} ${o.scheduleIds.map((id) => safe(id, 30)).join(', ')}`] : []),
    ...(o.escalationPolicyIds.length > 0
      ? [
          `escalation polic${o.escalationPolicyIds.length > 1 ? 'ies' : 'y'} ${o.escalationPolicyIds.map((id) => safe(id, 30)).join(', ')} ` +
            `up to level ${o.maxLevel}`,
        ]
      : []),
  ].join('; ');
  const grants = `Whoever is on call in PagerDuty (${where}) holds at least the *${o.role}* role while on call.`;
  const blocks: KnownBlock[] = [header('On call now')];
  if (o.list.state === 'unknown') {
    const text = ':warning: PagerDuty could not be asked just now: nobody gets a role from being on call until it answers; configured roles still count.';
    blocks.push(section(text), context(grants));
    return { text: fallback('PagerDuty could not be asked who is on call', o.sandbox), blocks: withSandbox(blocks, o.sandbox) };
  }
  const entries = o.list.entries;
  if (entries.length === 0) blocks.push(section('Nobody is on call now in those schedules and policies.'));
  else {
    const lines = entries
      .slice(0, ON_CALL_SHOWN)
      .map((e) => `• *${safe(oneLine(e.name), 60)}*: ${throughWhat(e)}, ${untilWhen(e.end)}`)
      .join('\n');
    const more = entries.length > ON_CALL_SHOWN ? `\n… and ${entries.length - ON_CALL_SHOWN} more` : '';
    blocks.push(section(`${lines}${more}`));
  }
  const mine =
    o.mine?.state === 'on_call'
      ? `You are on call: *${o.role}* ${untilWhen(o.mine.shift.end)} (PagerDuty: ${throughWhat(o.mine.shift)}).`
      : o.mine?.state === 'unknown'
        ? 'Whether you are on call could not be checked just now.'
        : 'You are not on call (matched by the email of your Slack profile).';
  blocks.push(context(grants, mine));
  const count = `${entries.length} ${entries.length === 1 ? 'person' : 'people'} on call now`;
  return { text: fallback(count, o.sandbox), blocks: withSandbox(blocks, o.sandbox) };
}
