import type { Button, KnownBlock } from '@slack/types';
import { newestFirst, restoreTargetOf, takenAt, usabilityOf, type RestoreFacts, type UnusableBackup, type Usability } from '../../changes/backups';
import type { Frozen } from '../../cloud/reads';
import type { Backup } from '../../cloud/schemas';
import { ago, sizeFromKb } from './measures';
import { code, context, fallback, header, oneLine, safe, section, slackTime, truncate, withSandbox, type Rendered } from './mrkdwn';
import { buttonOutOfDate, pageOf, pager, serverPageValue } from './pages';

// A server's backups (docs/product.md, The /vs command: `/vs backups`; Server
// at a glance): when each was taken and how long ago, its size, its type, the
// disk it restores, whether it can be used and why not; and the words a
// restore uses for one backup, in a menu's option, a form and a refusal.

type BackupRecord = Frozen<Backup> | Backup;

/** Backups a page of `/vs backups`: a section each, with its Restore button, so a page stays far below Slack's 50 blocks. */
export const BACKUPS_PAGE_SIZE = 10;
export const BACKUPS_PAGE_ACTION_IDS = { prev: 'backups_page_prev', next: 'backups_page_next' } as const;
export const BACKUPS_EXPORT_ACTION_ID = 'backups_export';
/** A `/vs backups` button (Prev/Next, Export CSV, Restore) whose value no longer parses (an old message, or a hand-made payload). */
export const BACKUPS_BUTTON_OUT_OF_DATE = buttonOutOfDate('/vs backups <vs_id>');

/** Why a backup cannot be restored, as a sentence's end: "Backup 12 cannot be restored: it is marked for deletion". */
export const UNUSABLE_WORDS: Readonly<Record<UnusableBackup, string>> = {
  marked_for_delete: 'it is marked for deletion',
  not_built: 'it is not built yet',
  locked: 'it is locked by a running transaction',
};

/** Why a backup cannot be restored, in a few words: "marked for deletion" (a list's line, a CSV cell). */
export const SHORT_UNUSABLE: Readonly<Record<UnusableBackup, string>> = {
  marked_for_delete: 'marked for deletion',
  not_built: 'not built yet',
  locked: 'locked by a running transaction',
};

/** Why a backup cannot be restored, as a sentence (mrkdwn): "Backup 12 cannot be restored: it is marked for deletion." Empty for a usable one. */
export function unusableText(backupId: number, usability: Usability): string {
  return usability.usable ? '' : `Backup ${backupId} cannot be restored: ${UNUSABLE_WORDS[usability.why]}.`;
}

/** A server none of whose backups can be restored: how many it has, and that nothing was asked. */
export function noUsableBackupText(vsId: number, count: number): string {
  const has = count === 0 ? 'has no backups' : `has ${count} backup${count === 1 ? '' : 's'}, none of them usable now (\`/vs backups ${vsId}\` says why)`;
  return `VS ${vsId} ${has}, so there is nothing to restore. Nothing was asked of anyone.`;
}

/** `/vs backup take` of a server with no built disk: nothing to back up. */
export function noBuiltDiskText(vsId: number, count: number): string {
  const has = count === 0 ? 'has no disks' : `has ${count} disk${count === 1 ? '' : 's'}, none of them built (\`/vs disks ${vsId}\`)`;
  return `VS ${vsId} ${has}, so there is nothing to back up. Nothing was asked of anyone.`;
}

const SCHEDULES: Readonly<Record<string, string>> = { day: 'daily', week: 'weekly', month: 'monthly', year: 'yearly' };

/**
 * The cloud's backup type in words, as plain text (docs/cloud-api.md, Backups: older clouds name the schedule); any
 * other as the cloud writes it, on one line and short. Escape it for mrkdwn.
 */
export function backupTypeText(type: string | null | undefined): string {
  if (!type) return 'type unknown';
  const schedule = /^(day|week|month|year)s-autobackup$/.exec(type);
  if (schedule) return `${SCHEDULES[schedule[1]!]} auto-backup`;
  return truncate(oneLine(type).trim(), 30);
}

/** "5 GB", or that the cloud did not say. */
export function backupSize(backup: Pick<BackupRecord, 'backup_size'>): string {
  return backup.backup_size == null ? 'size unknown' : sizeFromKb(backup.backup_size);
}

/** When it was taken, as Slack shows a time to each reader, and how long ago: "<date token> (31 hours ago)". */
function takenWords(backup: BackupRecord, now: number): string {
  const at = takenAt(backup);
  return at === null ? 'taken at an unknown time' : `${slackTime(at)} (${ago(at, now)})`;
}

/** Usable, or why not, as mrkdwn. */
export function usabilityWords(backup: BackupRecord): string {
  const usability = usabilityOf(backup);
  return usability.usable ? ':white_check_mark: usable' : `:no_entry: not usable: ${SHORT_UNUSABLE[usability.why]}`;
}

/** "<when> (70 days ago) · 5 GB · incremental · disk 101 · usable": one backup on the server's card and in `/vs backups`. */
export function backupLine(backup: BackupRecord, now: number): string {
  const { diskId } = restoreTargetOf(backup);
  const disk = diskId === null ? 'disk unknown' : `disk ${diskId}`;
  return [takenWords(backup, now), backupSize(backup), safe(backupTypeText(backup.backup_type), 40), disk, usabilityWords(backup)].join(' · ');
}

/**
 * A backup as a menu option of the restore form (plain text, at most 75 characters): its id, to type it again, then
 * "taken 31 hours ago · 5 GB · incremental · disk 101". Plain text takes no date token, and a clock written out would
 * be a second one beside the tokens of every message (docs/product.md, One outcome): how long ago says when. Where
 * that is too long, the age is shortened, then the type goes: the disk it overwrites is the last thing cut.
 */
export function backupOptionText(backup: BackupRecord, now: number): string {
  const at = takenAt(backup);
  const { diskId } = restoreTargetOf(backup);
  const disk = diskId === null ? 'disk unknown' : `disk ${diskId}`;
  const type = backupTypeText(backup.backup_type);
  const age = at === null ? 'taken at an unknown time' : `taken ${ago(at, now)}`;
  const short = age.replace(/ (minute|hour|day)s? ago$/, (_, unit: string) => ` ${unit[0]} ago`);
  const texts = [
    [age, backupSize(backup), type, disk],
    [short, backupSize(backup), type, disk],
    [short, backupSize(backup), disk],
  ].map((parts) => `#${backup.id} · ${parts.join(' · ')}`);
  return texts.find((text) => text.length <= 75) ?? truncate(texts[texts.length - 1]!, 75);
}

/**
 * Where a sentence about a restore goes: a message or a form's text (mrkdwn, with date tokens), or a confirmation
 * dialog, cut at 300 characters, where a token cut in half would show as markup.
 */
export type Said = 'message' | 'dialog';

/**
 * What a restore of `backup` loses, in plain words (a form, an approval request, a result): "everything written to
 * disk 101 since <date token>, 31 hours ago, is lost"; in a confirmation dialog "… since it was taken, 31 hours ago, …".
 */
export function lossText(backup: RestoreFacts, now: number, said: Said = 'message'): string {
  const at = takenAt(backup);
  const { diskId } = restoreTargetOf(backup);
  const disk = diskId === null ? 'its disk' : `disk ${diskId}`;
  const when = at === null ? null : said === 'message' ? slackTime(at) : 'it was taken';
  const since = at === null ? 'since the backup was taken (the cloud does not say when)' : `since ${when}, ${ago(at, now)},`;
  return `everything written to ${disk} ${since} is lost`;
}

/**
 * What a restore overwrites, as mrkdwn: "disk 101 of VS 42"; the server from the backup's record, or from where the
 * form was opened (`vsId`), or said to be unknown ("disk 101 (the cloud's answer does not say of which server)").
 */
export function overwritesText(backup: RestoreFacts, vsId?: number): string {
  const target = restoreTargetOf(backup);
  const disk = target.diskId === null ? 'its disk' : `disk ${target.diskId}`;
  const server = target.vsId ?? vsId ?? null;
  return server === null ? `${disk} (the cloud's answer does not say of which server)` : `${disk} of VS ${server}`;
}

/**
 * What a restore overwrites and loses, and the backup's size and type, in one sentence (mrkdwn, no markup of its own
 * but what it quotes escaped and the time's date token): "Restoring backup 9 overwrites disk 101 of VS 42: everything
 * written to disk 101 since <date token>, 24 hours ago, is lost (5 GB, incremental)". `at`: when it is said (the ages
 * count to then); `said`: in a message, or a confirmation dialog (no date token).
 */
export function restoreConsequence(backup: RestoreFacts, at: number, vsId?: number, said: Said = 'message'): string {
  const what = `${backupSize(backup)}, ${safe(backupTypeText(backup.backup_type), 40)}`;
  return `Restoring backup ${backup.id} overwrites ${overwritesText(backup, vsId)}: ${lossText(backup, at, said)} (${what})`;
}

/** "Backup 15 · 4.8 GB · normal": its size and type, as the form, the request and the result name it. */
export function backupFacts(backup: RestoreFacts): string {
  return `Backup ${backup.id} · ${backupSize(backup)} · ${safe(backupTypeText(backup.backup_type), 40)}`;
}

/** The Restore button of one backup in `/vs backups`: its value names the server and the backup the form preselects. */
export const RESTORE_BACKUP_ACTION_PREFIX = 'backups_restore_';

/** Reads a Restore button's value, "<vsId>:<backupId>". */
export function parseRestoreButtonValue(value: string): { vsId: number; backupId: number } | null {
  const m = /^([1-9][0-9]{0,15}):([1-9][0-9]{0,15})$/.exec(value);
  if (!m) return null;
  const vsId = Number(m[1]);
  const backupId = Number(m[2]);
  return Number.isSafeInteger(vsId) && Number.isSafeInteger(backupId) ? { vsId, backupId } : null;
}

/**
 * `/vs backups <vs_id>`: one page of the server's backups, newest first (docs/product.md, Long lists), one section
 * each, a Restore button on each usable one when the reader may restore; "page n of m" with Prev/Next when there are
 * pages, and Export CSV of them all.
 */
export function renderBackups(o: {
  vsId: number;
  backups: readonly BackupRecord[];
  page: number;
  mayRestore: boolean;
  now: number;
  sandbox: boolean;
}): Rendered {
  const sorted = newestFirst(o.backups);
  const usable = sorted.filter((b) => usabilityOf(b).usable).length;
  const { page, pages, from, shown } = pageOf(sorted, o.page, BACKUPS_PAGE_SIZE);
  const counted = `${sorted.length} backup${sorted.length === 1 ? '' : 's'}, ${usable} usable`;
  const blocks: KnownBlock[] = [header(`Backups · VS ${o.vsId}`)];
  if (sorted.length === 0) blocks.push(section(`VS ${o.vsId} has no backups.`));
  for (const backup of shown) {
    const note = backup.note ? ` — ${safe(oneLine(backup.note), 100)}` : '';
    const block = section(`*Backup ${backup.id}*${note}\n${backupLine(backup, o.now)}`) as KnownBlock & { accessory?: Button };
    if (o.mayRestore && usabilityOf(backup).usable) {
      block.accessory = {
        type: 'button',
        action_id: `${RESTORE_BACKUP_ACTION_PREFIX}${backup.id}`,
        text: { type: 'plain_text', text: 'Restore' },
        value: `${o.vsId}:${backup.id}`,
      };
    }
    blocks.push(block);
  }
  // "backups 1–1 of 1" says nothing on a one-page list: the page and the range are shown only when there are pages.
  const range = pages > 1 ? `backups ${from + 1}–${from + shown.length} of ${sorted.length}` : null;
  const paged = range ? `page ${page} of ${pages} · ${range} · ` : '';
  const restore = o.mayRestore && usable > 0 ? ` · ${code(`/vs restore ${o.vsId}`)} picks one to restore` : '';
  blocks.push(context(`${counted} · ${paged}newest first · fetched ${slackTime(o.now)}${restore}`));
  if (sorted.length > 0) {
    const exportAs = { actionId: BACKUPS_EXPORT_ACTION_ID, value: String(o.vsId) };
    blocks.push(pager({ blockId: 'backups_pager', ids: BACKUPS_PAGE_ACTION_IDS, page, pages, valueOf: serverPageValue(o.vsId), exportAs }));
  }
  const text = `VS ${o.vsId} has ${counted}${range ? `: page ${page} of ${pages}, ${range}` : ''}`;
  return { text: fallback(text, o.sandbox), blocks: withSandbox(blocks, o.sandbox) };
}
