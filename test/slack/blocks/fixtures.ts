// Test data built the way the app gets it: raw API objects parsed by the
// zod schemas (which normalise "" to null, "1" to true, strings to numbers).

import { AutoscalingSlot, Backup, Disk, FirewallRule } from '../../../src/cloud/schemas';
import type { Approval, AuditRecord, NewFollow } from '../../../src/store';
import type { Rendered } from '../../../src/slack/blocks/mrkdwn';

export const FETCHED_AT = new Date('2024-05-06T14:03:12.345Z');

export function rule(raw: Partial<Record<string, unknown>> & { id: number }): FirewallRule {
  return FirewallRule.parse({ network_interface_id: 1, position: raw.id, protocol: 'TCP', command: 'ACCEPT', address: null, port: null, ...raw });
}

/** `n` rules on one interface, positions 1..n, in reverse order (so sorting shows). */
export function manyRules(n: number, nic = 1): FirewallRule[] {
  const out: FirewallRule[] = [];
  for (let i = n; i >= 1; i--) out.push(rule({ id: 1000 + i, network_interface_id: nic, position: i, port: String(i) }));
  return out;
}

export function slot(raw: Partial<Record<string, unknown>> & { resource: string; scale_type: string }): AutoscalingSlot {
  return AutoscalingSlot.parse({ virtual_machine_id: 42, ...raw });
}

/** What the API sends for a slot with no rule. */
export function placeholder(resource: string, scale_type: string): AutoscalingSlot {
  return slot({ id: null, resource, scale_type, limit_trigger: null, for_minutes: null, adjust_units: null, up_to: null });
}

export function disk(raw: Partial<Record<string, unknown>> = {}): Disk {
  return Disk.parse({
    id: 77,
    virtual_machine_id: 42,
    disk_size: 20,
    disk_type: 'SSD',
    label: 'data',
    mount_point: '/mnt/data',
    built: false,
    locked: true,
    ...raw,
  });
}

export function backup(raw: Partial<Record<string, unknown>> = {}): Backup {
  return Backup.parse({
    id: 9,
    target_id: 42,
    target_type: 'VirtualMachine',
    disk_id: 77,
    backup_size: 2_516_582, // KB: 2.4 GB
    operating_system: 'linux',
    operating_system_distro: 'ubuntu',
    built: true,
    built_at: '2024-05-05T02:00:00Z',
    ...raw,
  });
}

/** When the fixture's approval request was asked for, and until when it is open. */
export const ASKED_MS = Date.parse('2024-05-06T14:03:12.000Z');
export const EXPIRES_MS = ASKED_MS + 30 * 60_000;
/** The add-disk body the fixture's request will send: markup in its label, as a person may type it. */
export const APPROVAL_BODY = '{"disk":{"disk_type":"SSD","disk_size":"20","label":"a \\"b\\" <c> & d"}}';

/** An open approval request for a disk on VS 42, asked for by UOPER, as the store gives it. */
export function approval(o: Partial<Approval> = {}): Approval {
  return {
    id: 'A-1',
    action: 'disk_add',
    target: 'vs:42',
    params: { disk_type: 'SSD', disk_size: 20 },
    channelId: 'CINCIDENT',
    requestedBy: 'UOPER',
    requestedAt: new Date(ASKED_MS).toISOString(),
    expiresAtMs: EXPIRES_MS,
    reason: 'the data disk is full',
    apiRequest: { method: 'POST', path: '/virtual_machines/42/disks.json', body: APPROVAL_BODY },
    status: 'requested',
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    messageTs: '1.2',
    cloud: null,
    ...o,
  };
}

export function auditRecord(o: Partial<AuditRecord> = {}): AuditRecord {
  return {
    id: 1,
    at: '2024-05-06T14:03:12.345Z',
    userId: 'U0ADMIN01',
    channelId: 'C0INCIDENT',
    action: 'disk_add',
    target: 'vs:42',
    params: { disk_type: 'SSD', disk_size: 20 },
    outcome: 'done',
    apiStatus: 201,
    durationMs: 812,
    detail: null,
    ...o,
  };
}

type AnyBlock = {
  type: string;
  block_id?: string;
  text?: { text: string };
  elements?: { type: string; text?: string | { text: string }; value?: string; action_id?: string }[];
};

export const blocksOf = (m: Rendered): AnyBlock[] => m.blocks as unknown as AnyBlock[];

/** Section texts, in order. */
export const sectionTexts = (m: Rendered): string[] =>
  blocksOf(m)
    .filter((b) => b.type === 'section')
    .map((b) => b.text?.text ?? '');

/** Context texts, in order. */
export const contextTexts = (m: Rendered): string[] =>
  blocksOf(m)
    .filter((b) => b.type === 'context')
    .flatMap((b) => (b.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : (e.text?.text ?? ''))));

export const headerText = (m: Rendered): string | undefined => blocksOf(m).find((b) => b.type === 'header')?.text?.text;

/** Everything a reader sees, joined. */
export const visible = (m: Rendered): string =>
  [...blocksOf(m).flatMap((b) => [b.text?.text ?? '', ...(b.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : (e.text?.text ?? '')))])].join(
    '\n',
  );

export const buttons = (m: Rendered) =>
  blocksOf(m)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements ?? [])
    .filter((e) => e.type === 'button')
    .map((e) => ({ text: typeof e.text === 'string' ? e.text : (e.text?.text ?? ''), value: e.value, actionId: e.action_id }));

export const SANDBOX_NOTICE = 'sandbox data — not a real cloud account';

/** A change the cloud accepted, as the door hands it over to be followed (an approved run's `accepted`). */
export function acceptedChange(o: Partial<NewFollow> = {}): NewFollow {
  return {
    recordId: 1,
    action: 'disk_add',
    target: 'vs:42',
    subject: { serverId: 42, parentType: 'Disk', parentId: 311, actions: ['build_disk'], facts: {} },
    requestedBy: 'UOPER',
    approvedBy: 'UADMIN',
    channelId: 'C1',
    baselineId: 6,
    acceptedAtMs: 0,
    nextPollAtMs: 5000,
    intervalMs: 5000,
    ...o,
  };
}
