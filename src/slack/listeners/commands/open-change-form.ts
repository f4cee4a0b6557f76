import type { ModalView } from '@slack/types';
import { CHANGES, usableBackups, type ChangeAction, type Inspection } from '../../../changes';
import { noBuiltDiskText, noUsableBackupText } from '../../blocks/backups';
import { FIREWALL_RISK_TEXT, firewallPreviewText, noInterfaceText, noSuchRuleText } from '../../blocks/firewall';
import { firewallRisk, interfacesOf, previewFirewallRule } from '../../../changes/firewall-changes';
import type { FirewallRuleArgs } from './grammar';
import { CHANGE_FORMS } from '../../blocks/change-forms';
import { MODAL_NOT_OPENED } from '../../blocks/messages';
import { lockedText, unfitText } from '../../blocks/power';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { targetMetadata, writeMetadata } from '../../metadata';
import { openModal } from '../../open-modal';
import { replyCloudError, replyError } from '../../reply';

/**
 * `/vs disk add 42`, `/vs backup restore 9`, `/vs reboot 42`: opens the
 * change's form. The needs check (the change door, which records a refusal)
 * has already let the user through; the door checks again when the form is
 * submitted. A change whose row reads its target first (the power actions:
 * the server) opens its form only once the target was read and allows it:
 * otherwise the user is told why (busy, its state, or what the cloud said),
 * and nothing opens.
 */
export async function openChangeForm(ctx: ListenerContext, req: SlackRequest, action: ChangeAction, targetId: number): Promise<Outcome> {
  const channelId = req.channelId ?? undefined;
  const { targetKind } = CHANGES[action];
  let inspection: Inspection | null;
  try {
    inspection = await ctx.changes.inspect(action, targetId);
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
  const view = CHANGE_FORMS[action].form.modal({
    targetId,
    channelId,
    privateMetadata: writeMetadata({ channelId, ...targetMetadata(targetKind, targetId), responseUrl: req.responseUrl }),
    sandbox: ctx.sandbox,
    action,
    role: await ctx.policy.roleOf(req.userId),
    now: ctx.now(),
    ...(inspection ? { state: inspection.state } : {}),
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

/**
 * `/vs backup take 42` (docs/product.md, More of the control panel): the take-a-backup form with a picker of the
 * server's built disks, as its row's form reads say (CHANGES.backup_take.formReads). A server the cloud does not know,
 * or one with no built disk, is answered with why, and no form opens.
 */
export async function openBackupTakePicker(ctx: ListenerContext, req: SlackRequest, vsId: number): Promise<Outcome> {
  let reading;
  try {
    reading = await CHANGES.backup_take.formReads!(ctx.cloud, vsId, {});
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
  if (!reading.ok) {
    await replyError(req, noBuiltDiskText(vsId, reading.unfit.kind === 'no_built_disk' ? reading.unfit.disks : 0));
    return 'invalid';
  }
  const channelId = req.channelId ?? undefined;
  const view = CHANGE_FORMS.backup_take.form.modal({
    channelId,
    privateMetadata: writeMetadata({ channelId, vsId, responseUrl: req.responseUrl }),
    sandbox: ctx.sandbox,
    action: 'backup_take',
    disks: { vsId, disks: reading.reads.disks ?? [] },
    now: ctx.now(),
  });
  return open(req, view);
}

/**
 * `/vs firewall remove 42 17` (docs/product.md, More of the control panel): the server's rules are read first, and
 * the form names the rule in words; a rule the server does not have is answered so, and no form opens. The rule's id
 * travels in the form's metadata (`fixed`), read with the form's values when it is submitted.
 */
export async function openFirewallRemove(ctx: ListenerContext, req: SlackRequest, vsId: number, ruleId: number): Promise<Outcome> {
  let reading;
  try {
    reading = await CHANGES.firewall_remove.formReads!(ctx.cloud, vsId, { rule_id: String(ruleId) });
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
  if (!reading.ok || !reading.reads.rule) {
    await replyError(req, noSuchRuleText(vsId, ruleId));
    return 'not_found';
  }
  const channelId = req.channelId ?? undefined;
  const view = CHANGE_FORMS.firewall_remove.form.modal({
    channelId,
    privateMetadata: writeMetadata({ channelId, vsId, responseUrl: req.responseUrl, fixed: { rule_id: String(ruleId) } }),
    sandbox: ctx.sandbox,
    action: 'firewall_remove',
    rule: { vsId, rule: reading.reads.rule },
    now: ctx.now(),
  });
  return open(req, view);
}

/**
 * `/vs firewall block 42 203.0.113.5 443` and `/vs firewall allow …` (docs/product.md, More of the control panel):
 * the server's rules are read first; the form opens prefilled, with what the rule would do given those rules (first
 * match in position order, the new rule at the end). The only network interface is chosen for you (in the metadata's
 * `fixed`); a server whose rules name none is told to use the shortcut's form, which asks for it.
 */
export async function openFirewallAdd(ctx: ListenerContext, req: SlackRequest, command: 'DROP' | 'ACCEPT', args: FirewallRuleArgs): Promise<Outcome> {
  const { vsId } = args;
  let reading;
  try {
    reading = await CHANGES.firewall_add.formReads!(ctx.cloud, vsId, {});
  } catch (error) {
    return replyCloudError(ctx, req, error, { kind: 'vs', id: vsId });
  }
  const rules = reading.ok ? (reading.reads.rules ?? []) : [];
  const interfaces = interfacesOf(rules);
  if (interfaces.length === 0) {
    await replyError(req, noInterfaceText(vsId));
    return 'invalid';
  }
  const rule = { command, address: args.address, port: args.port, protocol: args.protocol };
  const only = interfaces.length === 1 ? interfaces[0]! : undefined;
  const preview = firewallPreviewText(rule, previewFirewallRule(rules, { ...rule, network_interface_id: only ?? interfaces[0]! }));
  const risk = firewallRisk(rule, ctx.config.forms);
  const channelId = req.channelId ?? undefined;
  const view = CHANGE_FORMS.firewall_add.form.modal({
    channelId,
    privateMetadata: writeMetadata({
      channelId,
      vsId,
      responseUrl: req.responseUrl,
      ...(only !== undefined ? { fixed: { network_interface_id: String(only) } } : {}),
    }),
    sandbox: ctx.sandbox,
    action: 'firewall_add',
    firewall: { vsId, interfaces, ...rule, preview, ...(risk ? { risk: FIREWALL_RISK_TEXT[risk] } : {}) },
    now: ctx.now(),
  });
  return open(req, view);
}

async function open(req: SlackRequest, view: ModalView): Promise<Outcome> {
  if (req.triggerId && (await openModal(req.client, req.triggerId, view, req.log))) return 'opened';
  await replyError(req, MODAL_NOT_OPENED);
  return 'failed';
}
