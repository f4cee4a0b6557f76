import type { ButtonArgs } from './button-args';
import { newestFirst, type ReadAction } from '../../../changes';
import type { AuditRecord } from '../../../store';
import { auditQuery } from '../../../changes/audit-filter';
import { AUDIT_BUTTON_OUT_OF_DATE, AUDIT_EXPORT_ACTION_ID, AUDIT_UNREADABLE, parseAuditExportValue } from '../../blocks/audit';
import { BACKUPS_BUTTON_OUT_OF_DATE, BACKUPS_EXPORT_ACTION_ID } from '../../blocks/backups';
import { AUDIT_RECORD_COLUMNS, BACKUP_COLUMNS, EXPORT_MAX_ROWS, FIREWALL_RULE_COLUMNS, toCsv, type CsvColumn } from '../../blocks/csv';
import {
  auditExportWords,
  backupsExportWords,
  exportComment,
  exportFailedText,
  exportFilename,
  FIREWALL_EXPORT_ACTION_ID,
  firewallExportWords,
  nothingToExport,
  renderExportSent,
  type ExportFacts,
} from '../../blocks/exports';
import { FIREWALL_BUTTON_OUT_OF_DATE, sortedRules } from '../../blocks/firewall';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { DirectUploadError, uploadToDirectMessage } from '../../dm-upload';
import { replyCloudError, replyEphemeral, replyError } from '../../reply';
import { parseId } from '../commands/grammar';
import type { ListenerRow } from '../listener';

// Export CSV (docs/product.md, Long lists): one row per list, each a read under
// the role and the per-person limit its list has (the needs middleware takes
// them before it runs), that reads the whole list afresh, up to
// EXPORT_MAX_ROWS, writes it as CSV and uploads it to the clicker's direct
// messages with the bot. The clicker is told where they clicked.

/** A list read whole for its export: its rows (at most EXPORT_MAX_ROWS) and how many there were in all. */
interface ReadList<T> {
  rows: readonly T[];
  total: number;
}

interface ExportSpec<V, T> {
  actionId: string;
  /** The read the list itself needs (its export is that read). */
  need: ReadAction;
  /** The button's value; null: out of date, or made by hand. */
  parse(value: string): V | null;
  outOfDate: string;
  words(value: V): Pick<ExportFacts, 'what' | 'title' | 'noun'>;
  columns: readonly CsvColumn<T>[];
  /** Reads the list; answers a failure itself and returns its outcome instead. */
  read(ctx: ListenerContext, req: SlackRequest, value: V): Promise<ReadList<T> | Outcome>;
}

function exportRow<V, T>(spec: ExportSpec<V, T>): ListenerRow<ButtonArgs> & { actionId: string } {
  return {
    actionId: spec.actionId,
    needs: { need: spec.need },
    run: (ctx, req, { action }) => runExport(ctx, req, spec, typeof action.value === 'string' ? action.value : ''),
  };
}

async function runExport<V, T>(ctx: ListenerContext, req: SlackRequest, spec: ExportSpec<V, T>, raw: string): Promise<Outcome> {
  const value = spec.parse(raw);
  if (value === null) {
    await replyError(req, spec.outOfDate);
    return 'invalid';
  }
  const file = await csvFile(ctx, req, spec, value);
  if (typeof file === 'string') return file;
  const { facts, content } = file;
  if (facts.shown === 0) {
    await replyError(req, nothingToExport(facts.what));
    return 'succeeded';
  }
  try {
    await uploadToDirectMessage(
      req.client,
      { userId: req.userId, filename: exportFilename(facts), title: exportFilename(facts), content, comment: exportComment(facts) },
      ctx.config.slack.apiUrl,
    );
  } catch (error) {
    const slackError = error instanceof DirectUploadError ? error.slackError : undefined;
    req.log.warn('the export could not be sent', { step: error instanceof DirectUploadError ? error.step : undefined, slackError });
    await replyError(req, exportFailedText(slackError));
    return 'failed';
  }
  req.log.info('exported', { rows: facts.shown, total: facts.total });
  await replyEphemeral(req, renderExportSent(facts));
  return 'succeeded';
}

/**
 * The list read and written as CSV, or the outcome of a read that failed (already told). Only the file leaves: the
 * rows (10,000 objects) are garbage before the upload's round trips begin, not carried through them.
 */
async function csvFile<V, T>(
  ctx: ListenerContext,
  req: SlackRequest,
  spec: ExportSpec<V, T>,
  value: V,
): Promise<{ facts: ExportFacts; content: string } | Outcome> {
  const read = await spec.read(ctx, req, value);
  if (typeof read === 'string') return read;
  const facts: ExportFacts = { ...spec.words(value), shown: read.rows.length, total: read.total, atMs: ctx.now() };
  return { facts, content: read.rows.length === 0 ? '' : toCsv(spec.columns, read.rows) };
}

/** Audit records are read in pages of this many, newest first, each below the last one read. */
const AUDIT_READ_PAGE = 1000;

/**
 * The export of a list of one server, read from the cloud (its button's value: the server's id), in the order its
 * message shows it; a failed read is told in the list's words.
 */
function serverListExport<T>(spec: {
  actionId: string;
  outOfDate: string;
  words: (vsId: number) => Pick<ExportFacts, 'what' | 'title' | 'noun'>;
  columns: readonly CsvColumn<T>[];
  list: (ctx: ListenerContext, vsId: number) => Promise<readonly T[]>;
  ordered: (rows: readonly T[]) => T[];
}) {
  return exportRow<number, T>({
    ...spec,
    need: 'read',
    parse: (value) => parseId(value),
    async read(ctx, req, vsId) {
      try {
        const rows = await spec.list(ctx, vsId);
        return { rows: spec.ordered(rows).slice(0, EXPORT_MAX_ROWS), total: rows.length };
      } catch (error) {
        return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
      }
    },
  });
}

/** The rows of ACTIONS (index.ts) for the Export CSV buttons. */
export const EXPORTS = [
  serverListExport({
    actionId: FIREWALL_EXPORT_ACTION_ID,
    outOfDate: FIREWALL_BUTTON_OUT_OF_DATE,
    words: firewallExportWords,
    columns: FIREWALL_RULE_COLUMNS,
    list: (ctx, vsId) => ctx.cloud.listFirewallRules(vsId),
    ordered: sortedRules,
  }),
  serverListExport({
    actionId: BACKUPS_EXPORT_ACTION_ID,
    outOfDate: BACKUPS_BUTTON_OUT_OF_DATE,
    words: backupsExportWords,
    columns: BACKUP_COLUMNS,
    list: (ctx, vsId) => ctx.cloud.listBackups(vsId),
    ordered: newestFirst,
  }),
  exportRow({
    actionId: AUDIT_EXPORT_ACTION_ID,
    need: 'audit_read',
    parse: (value) => parseAuditExportValue(value),
    outOfDate: AUDIT_BUTTON_OUT_OF_DATE,
    words: ({ f }) => auditExportWords(f),
    columns: AUDIT_RECORD_COLUMNS,
    async read(ctx, req, { f }) {
      const query = auditQuery(f);
      const rows: AuditRecord[] = [];
      try {
        while (rows.length < EXPORT_MAX_ROWS) {
          const last = rows[rows.length - 1];
          const page = await ctx.store.audit.latest(Math.min(AUDIT_READ_PAGE, EXPORT_MAX_ROWS - rows.length), {
            ...query,
            ...(last ? { maxId: last.id - 1 } : {}),
          });
          rows.push(...page);
          if (page.length < AUDIT_READ_PAGE) break;
        }
        // Cut: how many there are in all, for the message to say.
        const total = rows.length < EXPORT_MAX_ROWS ? rows.length : await ctx.store.audit.count(query);
        return { rows, total };
      } catch (error) {
        req.log.warn('could not read the audit trail for its export', { error });
        await replyError(req, AUDIT_UNREADABLE);
        return 'failed';
      }
    },
  }),
];
