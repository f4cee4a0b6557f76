import { CHANGES, isChangeAction, recordTargetTitle } from '../changes';
import type { ChangeEventItem } from '../store';
import { endOf, type ChangeEnd } from './ended';

// A change that ended, as a PagerDuty change event (Events API v2; docs/product.md, On call): one summary line in
// words ("VS 42: reboot done — asked by Ada, approved by Bea"), the source, when it ended, a few facts for
// filtering and a link to its message in Slack. Nothing else leaves: no parameters, no reason, no request body, no
// id of a person, no secret. The routing key is the sender's to add.

/** PagerDuty's limit on a change event's summary. */
export const MAX_SUMMARY_LENGTH = 1024;
/** What the events say they come from. */
export const EVENT_SOURCE = 'vs-chatops';

/** What the sender hands in besides the item: people's names, and where the change's message is. */
export interface EventFacts {
  /** Each person's name as Slack shows it (never an id): who asked, who approved. */
  names: ReadonlyMap<string, string>;
  /** A link to the change's message in Slack; null when there is none. */
  link: string | null;
}

export interface ChangeEventPayload {
  summary: string;
  source: string;
  timestamp: string;
  custom_details: Record<string, string | number | boolean | readonly number[] | null>;
}

export interface ChangeEventBody {
  payload: ChangeEventPayload;
  links: { href: string; text: string }[];
}

/** The people an event names: who asked (the record's person) and who approved, if anyone did. */
export function peopleOf(item: ChangeEventItem): string[] {
  const r = item.record;
  const asked = r.requestedBy ?? r.userId;
  return [asked, ...(r.decidedBy && r.decidedBy !== asked ? [r.decidedBy] : [])].filter((id) => id !== '');
}

/** The target in words: "VS 42", "Backup 9"; a target of no known kind as stored. */
function targetWords(target: string, label?: string | null): string {
  return recordTargetTitle(target, label) ?? target;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
/** A name as it goes into one line: no line breaks, bounded. */
const oneName = (name: string) => clip(name.replace(/\s+/g, ' ').trim(), 80) || 'someone';

/** The event of a change that ended; null when its record says it has not (then it is not sent). */
export function changeEventOf(item: ChangeEventItem, facts: EventFacts): ChangeEventBody | null {
  const r = item.record;
  const end: ChangeEnd | null = endOf(r);
  if (end === null || !isChangeAction(r.action)) return null;
  const nameOf = (id: string) => oneName(facts.names.get(id) ?? 'someone');
  const asked = r.requestedBy ?? r.userId;
  const approved = r.decidedBy && r.decidedBy !== asked ? `, approved by ${nameOf(r.decidedBy)}` : '';
  const brokeGlass = r.breakGlass ? ', under break glass (no second person)' : '';
  const server = targetWords(r.target, r.serverLabel);
  const summary = clip(
    `${server}: ${CHANGES[r.action].inShort} ${end} — asked by ${asked === '' ? 'a workflow' : nameOf(asked)}${approved}${brokeGlass}`,
    MAX_SUMMARY_LENGTH,
  );
  const endedMs = item.endedAtMs ?? Date.parse(r.at) + r.durationMs;
  return {
    payload: {
      summary,
      source: EVENT_SOURCE,
      timestamp: new Date(Number.isFinite(endedMs) ? endedMs : Date.parse(r.at)).toISOString(),
      custom_details: {
        server,
        target: r.target,
        action: CHANGES[r.action].action,
        outcome: end,
        transaction_ids: [...(r.transactionIds ?? [])],
        audit_record_id: r.id,
        cloud_api_status: r.apiStatus,
        break_glass: r.breakGlass !== null && r.breakGlass !== undefined,
      },
    },
    links: facts.link ? [{ href: facts.link, text: 'The change in Slack' }] : [],
  };
}
