import type { ModalView } from '@slack/types';
import { CHANGES, NAMED_THING_MISSING, usableBackups, type ChangeAction, type FormReading, type FormValues, type Inspection } from '../../../changes';
import { noUsableBackupText } from '../../blocks/backups';
import { CHANGE_FORMS, formUnfitText } from '../../blocks/change-forms';
import { MODAL_NOT_OPENED } from '../../blocks/messages';
import { lockedText, unfitText } from '../../blocks/power';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { targetMetadata, writeMetadata } from '../../metadata';
import { openModal } from '../../open-modal';
import { replyCloudError, replyError } from '../../reply';

/**
 * `/vs disk add 42`, `/vs backup take 42`, `/vs firewall block 42 203.0.113.5 443`, `/vs reboot 42`: opens the
 * change's form. The needs check (the change door, which records a refusal) has already let the user through; the
 * door checks again when the form is submitted. What the change's row says is read first is read before anything
 * opens: its target (`inspect`: the power actions' server), what its form shows (`formReads`: the disks to pick from,
 * the rules as they are, given what the command named). When either says no (busy, its state, no disk to back up, no
 * such rule, or what the cloud said), the user is told why and nothing opens. Values chosen for the person (the rule
 * named, the only interface) travel in the form's metadata (`fixed`) and are read with its values.
 */
export async function openChangeForm(
  ctx: ListenerContext,
  req: SlackRequest,
  action: ChangeAction,
  targetId: number,
  given: FormValues = {},
): Promise<Outcome> {
  const channelId = req.channelId ?? undefined;
  const row = CHANGES[action];
  const { targetKind } = row;
  let inspection: Inspection | null;
  let reading: FormReading | null;
  try {
    // Side by side: a Slack trigger id lasts 3 s, and the two reads do not depend on each other.
    [inspection, reading] = await Promise.all([ctx.changes.inspect(action, targetId), row.formReads ? row.formReads(ctx.cloud, targetId, given) : null]);
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: targetKind, id: targetId });
  }
  if (inspection?.outcome === 'busy') {
    await replyError(req, lockedText(targetId, inspection.transaction));
    return 'busy';
  }
  if (inspection?.outcome === 'unfit') {
    await replyError(req, unfitText(targetId, action, inspection.state));
    return 'invalid';
  }
  if (reading && !reading.ok) {
    await replyError(req, formUnfitText(targetId, reading.unfit));
    return NAMED_THING_MISSING.has(reading.unfit.kind) ? 'not_found' : 'invalid';
  }
  const fixed = reading?.fixed;
  const { form } = CHANGE_FORMS[action];
  // What the form shows the effect of, as it opens (a firewall rule's preview): a submission of other values shows theirs first.
  const shown = reading?.ok && form.showsEffectOf ? form.showsEffectOf({ ...given, ...fixed }, reading.reads) : null;
  const view = form.modal({
    targetId,
    channelId,
    privateMetadata: writeMetadata({
      channelId,
      ...targetMetadata(targetKind, targetId),
      responseUrl: req.responseUrl,
      ...(fixed ? { fixed: { ...fixed } } : {}),
      ...(shown ? { shown } : {}),
    }),
    sandbox: ctx.sandbox,
    action,
    role: await ctx.policy.roleOf(req.userId),
    now: ctx.now(),
    ...(inspection ? { state: inspection.state } : {}),
    ...(reading ? { reads: reading.reads, given, limits: ctx.config.forms } : {}),
  });
  return open(req, view);
}

/**
 * `/vs restore 42` and the Restore buttons (docs/product.md, Restore with eyes open): the restore form with a picker
 * of the server's usable backups, newest first (`chosen` picked already: the backup whose button was pressed). A
 * server the cloud does not know, or one with no usable backup, is answered with why, and no form opens. The backup
 * picked is read again when the form is submitted.
 */
export async function openRestorePicker(ctx: ListenerContext, req: SlackRequest, vsId: number, chosen?: number): Promise<Outcome> {
  let backups;
  try {
    backups = await ctx.cloud.listBackups(vsId);
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
  const usable = usableBackups(backups);
  if (usable.length === 0) {
    await replyError(req, noUsableBackupText(vsId, backups.length));
    return 'invalid';
  }
  const channelId = req.channelId ?? undefined;
  const view = CHANGE_FORMS.backup_restore.form.modal({
    channelId,
    // The server, not a backup: the backup is the one picked (the form's `backup_id`).
    privateMetadata: writeMetadata({ channelId, vsId, responseUrl: req.responseUrl }),
    sandbox: ctx.sandbox,
    action: 'backup_restore',
    pick: { vsId, backups: usable, ...(chosen !== undefined && usable.some((b) => b.id === chosen) ? { chosen } : {}) },
    now: ctx.now(),
  });
  return open(req, view);
}

async function open(req: SlackRequest, view: ModalView): Promise<Outcome> {
  if (req.triggerId && (await openModal(req.client, req.triggerId, view, req.log))) return 'opened';
  await replyError(req, MODAL_NOT_OPENED);
  return 'failed';
}
