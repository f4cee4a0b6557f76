import type { AuditFilter } from '../../changes/audit-filter';
import { filterWords } from './audit';
import { EXPORT_MAX_ROWS } from './csv';
import { fallback, type Rendered, section, slackTime, utcText } from './mrkdwn';

// The words of Export CSV (docs/product.md, Long lists): each list in words,
// the message the file is shared with in the person's direct messages, and
// what the person is told where they clicked. The button is the pager's
// (pages.ts).

export const FIREWALL_EXPORT_ACTION_ID = 'firewall_export';

/** What a file holds: `shown` rows of `total` (more than EXPORT_MAX_ROWS are cut there), of a list said in words. */
export interface ExportFacts {
  /** The list in words, as mrkdwn: "the firewall rules of VS 42", "the audit records of <@U1>". */
  what: string;
  /** The same, for a file's title and name (plain text). */
  title: string;
  /** The rows' noun: "rule", "record". */
  noun: string;
  shown: number;
  total: number;
  atMs: number;
}

/** A server's firewall rules, in words. */
export function firewallExportWords(vsId: number): Pick<ExportFacts, 'what' | 'title' | 'noun'> {
  return { what: `the firewall rules of VS ${vsId}`, title: `VS ${vsId} firewall rules`, noun: 'rule' };
}

/** A server's backups, in words. */
export function backupsExportWords(vsId: number): Pick<ExportFacts, 'what' | 'title' | 'noun'> {
  return { what: `the backups of VS ${vsId}`, title: `VS ${vsId} backups`, noun: 'backup' };
}

/** The records of `/vs audit` with a filter, in words (a person by their mention; by their id in a file's name). */
export function auditExportWords(filter: AuditFilter | undefined): Pick<ExportFacts, 'what' | 'title' | 'noun'> {
  const noun = 'record';
  if (filter === undefined) return { what: 'the audit trail', title: 'audit trail', noun };
  switch (filter.kind) {
    case 'outcome':
      return { what: `the ${filterWords(filter)} of the audit trail`, title: `audit ${filter.outcome}`, noun };
    case 'person':
      return { what: `the audit records of ${filterWords(filter)}`, title: `audit ${filter.userId}`, noun };
    default:
      return { what: `the audit records of ${filterWords(filter)}`, title: `audit ${filterWords(filter)}`, noun };
  }
}

const counted = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

/** "vs-42-firewall-rules-2024-05-06-1403.csv": the list and the time, no character a file system refuses. */
export function exportFilename(facts: Pick<ExportFacts, 'title' | 'atMs'>): string {
  const stamp = utcText(facts.atMs).slice(0, 16).replace(/[ :]/g, '-');
  const slug = facts.title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || 'export'}-${stamp}.csv`;
}

/** The message the file is shared with: what it holds and when, and where it was cut. */
export function exportComment(f: ExportFacts): string {
  const cut =
    f.total > f.shown
      ? ` It holds the first ${counted(f.shown, f.noun)} of ${counted(f.total, f.noun)}: an export stops at ${EXPORT_MAX_ROWS.toLocaleString('en-US')} rows.`
      : '';
  return `:page_facing_up: ${capitalised(f.what)}: ${counted(f.shown, f.noun)}, as of ${slackTime(f.atMs)}.${cut}`;
}

/** Told where the person clicked: the file is in their direct messages. */
export function renderExportSent(f: ExportFacts): Rendered {
  const cut = f.total > f.shown ? ` (the first ${counted(f.shown, f.noun)} of ${counted(f.total, f.noun)})` : '';
  const text = `:inbox_tray: Sent ${f.what} as a CSV file to your direct messages with the bot: ${counted(f.shown, f.noun)}${cut}.`;
  return { text: fallback(text), blocks: [section(text)] };
}

/** Nothing to export: the list is empty now. */
export function nothingToExport(what: string): string {
  return `There is nothing to export: ${what} is empty now.`;
}

/** Slack did not take the file; what to do about it (the app's scopes, or try again). */
export function exportFailedText(slackError: string | undefined): string {
  if (slackError === 'missing_scope' || slackError === 'not_allowed_token_type')
    return (
      'The CSV file could not be sent: Slack refused the upload (missing_scope). The app needs the files:write and im:write ' +
      'scopes (manifest.yml); ask whoever runs the bot to add them and reinstall the app.'
    );
  return `The CSV file could not be sent to your direct messages: Slack did not take it${slackError ? ` (${slackError})` : ''}. Try again in a minute.`;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
