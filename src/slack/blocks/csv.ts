import { restoreTargetOf, usabilityOf } from '../../changes/backups';
import { outcomeOf } from '../../changes/outcome';
import type { Frozen } from '../../cloud/reads';
import type { Backup, FirewallRule } from '../../cloud/schemas';
import type { AuditRecord } from '../../store';
import { SHORT_UNUSABLE } from './backups';
import { isIsoTime } from './mrkdwn';

// The CSV files of Export CSV (docs/product.md, Long lists): a table of
// columns per list, and cells written so that a spreadsheet reads each as
// the text it is. RFC 4180 quoting (a comma, a quote or a line break puts a
// cell in quotes, quotes doubled), and no formula: a cell of text that
// starts with = + - @ (or their full-width and small forms, which Excel reads
// alike, or a minus sign), after any spaces or invisible characters a
// spreadsheet skips, or with a tab, carriage return or line feed, gets a
// leading apostrophe, so a rule description or a label from the cloud API
// cannot run as a formula on an admin's machine (OWASP, "CSV Injection").
// Numbers are written as numbers.

export type CsvValue = string | number | boolean | null | undefined;

export interface CsvColumn<T> {
  /** The header cell. */
  name: string;
  cell(row: T): CsvValue;
}

/** The most rows a file holds; a longer list is cut there, and the message with the file says so. */
export const EXPORT_MAX_ROWS = 10_000;

/**
 * What a spreadsheet reads as the start of a formula: = + - @ in ASCII, full width (＝ ＋ － ＠) and small (﹦ ﹢ ﹣ ﹫)
 * forms, and the minus sign, after any whitespace, control or format characters (spaces, no-break and ideographic
 * spaces, zero-width ones, a byte-order mark); or a tab, carriage return or line feed first.
 */
const FORMULA_START = /^(?:[\s\p{Cc}\p{Cf}]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B\u2212]|[\t\r\n])/u;
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: text defused and quoted as needed; numbers and booleans as they are; nothing as an empty cell. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A whole file: the header line, then a line per row, each ended by CRLF (RFC 4180). */
export function toCsv<T>(columns: readonly CsvColumn<T>[], rows: Iterable<T>): string {
  const lines = [columns.map((c) => csvCell(c.name)).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(c.cell(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A server's firewall rules, in the order the summary shows them (interface, then position). */
export const FIREWALL_RULE_COLUMNS: readonly CsvColumn<FirewallRule>[] = [
  { name: 'network_interface_id', cell: (r) => r.network_interface_id },
  { name: 'position', cell: (r) => r.position },
  { name: 'command', cell: (r) => r.command },
  { name: 'protocol', cell: (r) => r.protocol },
  { name: 'address', cell: (r) => r.address },
  { name: 'port', cell: (r) => r.port },
  { name: 'source_port', cell: (r) => r.source_port },
  { name: 'destination_ip', cell: (r) => r.destination_ip },
  { name: 'enabled', cell: (r) => r.enabled },
  { name: 'enable_logging', cell: (r) => r.enable_logging },
  { name: 'description', cell: (r) => r.description },
  { name: 'id', cell: (r) => r.id },
];

/**
 * Audit records, newest first: every field kept, people and channels by id, times in UTC (ISO 8601), the outcome in
 * the one vocabulary (docs/product.md, One outcome, told the same everywhere; a change in flight is `running`).
 */
export const AUDIT_RECORD_COLUMNS: readonly CsvColumn<AuditRecord>[] = [
  { name: 'id', cell: (r) => r.id },
  { name: 'at', cell: (r) => utcIso(r.at) },
  { name: 'user_id', cell: (r) => r.userId },
  { name: 'channel_id', cell: (r) => r.channelId },
  { name: 'action', cell: (r) => r.action },
  { name: 'target', cell: (r) => r.target },
  { name: 'outcome', cell: (r) => outcomeOf(r.outcome) },
  { name: 'api_status', cell: (r) => r.apiStatus },
  { name: 'duration_ms', cell: (r) => Math.round(r.durationMs) },
  { name: 'detail', cell: (r) => r.detail },
  { name: 'requested_by', cell: (r) => r.requestedBy },
  { name: 'decided_by', cell: (r) => r.decidedBy },
  { name: 'approval_id', cell: (r) => r.approvalId },
  { name: 'workflow_execution_id', cell: (r) => r.workflowExecutionId },
  { name: 'request_method', cell: (r) => r.apiRequest?.method },
  { name: 'request_path', cell: (r) => r.apiRequest?.path },
  { name: 'request_body', cell: (r) => r.apiRequest?.body },
  // The times in them too (a backup's built_at as the cloud wrote it, with its offset), in UTC.
  { name: 'params', cell: (r) => jsonCell(r.params, (_key, value: unknown) => (isIsoTime(value) ? utcIso(value) : value)) },
  // Once followed to its end (docs/product.md, Following a change to its end): the cloud's outcome, its transactions.
  { name: 'cloud_outcome', cell: (r) => r.cloudOutcome },
  { name: 'cloud_step', cell: (r) => r.cloudStep },
  { name: 'transaction_ids', cell: (r) => r.transactionIds?.join(' ') },
  // What a record said before the outcomes were one vocabulary (migration 10), where that said more.
  { name: 'former_outcome', cell: (r) => r.formerOutcome },
];

/**
 * A server's backups, newest first. Named columns only (docs/product.md, Long lists): what a person needs to pick
 * one, never the rest of the record (its storage's identifiers); sizes as the cloud gives them (backup_size in kB),
 * times in UTC (ISO 8601).
 */
export const BACKUP_COLUMNS: readonly CsvColumn<Frozen<Backup>>[] = [
  { name: 'id', cell: (b) => b.id },
  { name: 'built_at', cell: (b) => utcIso(b.built_at) },
  { name: 'created_at', cell: (b) => utcIso(b.created_at) },
  { name: 'backup_type', cell: (b) => b.backup_type },
  { name: 'initiated', cell: (b) => b.initiated },
  { name: 'backup_size', cell: (b) => b.backup_size },
  { name: 'disk_id', cell: (b) => restoreTargetOf(b).diskId },
  { name: 'target_type', cell: (b) => b.target_type },
  { name: 'target_id', cell: (b) => b.target_id },
  { name: 'built', cell: (b) => b.built },
  { name: 'locked', cell: (b) => b.locked },
  { name: 'marked_for_delete', cell: (b) => b.marked_for_delete },
  { name: 'usable', cell: (b) => usabilityOf(b).usable },
  { name: 'not_usable_because', cell: (b) => whyNotUsable(b) },
  { name: 'min_disk_size', cell: (b) => b.min_disk_size },
  { name: 'min_memory_size', cell: (b) => b.min_memory_size },
  { name: 'template_id', cell: (b) => b.template_id },
  { name: 'operating_system', cell: (b) => b.operating_system },
  { name: 'operating_system_distro', cell: (b) => b.operating_system_distro },
  { name: 'note', cell: (b) => b.note },
];

function whyNotUsable(backup: Frozen<Backup>): string {
  const usability = usabilityOf(backup);
  return usability.usable ? '' : SHORT_UNUSABLE[usability.why];
}

/** A time the cloud wrote, in UTC (ISO 8601); one that does not read as a time as the cloud wrote it. */
function utcIso(at: string | null | undefined): string | undefined {
  if (at == null) return undefined;
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : at;
}

function jsonCell(value: unknown, replacer?: (key: string, value: unknown) => unknown): string {
  try {
    return JSON.stringify(value, replacer) ?? '';
  } catch {
    return '';
  }
}
