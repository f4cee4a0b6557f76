import type { FieldErrors } from './disk-params';
import type { SandboxState } from './state';
import type {
  AutoscalingResource,
  SandboxAnswerShape,
  SandboxAutoscalingRule,
  SandboxBackup,
  SandboxDisk,
  SandboxFirewallRule,
  SandboxServer,
  SandboxTransaction,
  ScaleType,
  WireFormat,
} from './types';
import { xmlDocument, xmlErrors, xmlList, type XmlValue } from './xml';

// Records as the API serves them (docs/cloud-api.md), and their wire bodies:
// JSON wraps each record in its resource key, XML is Rails-style with typed
// attributes. What a lock or a power state is comes from the state (the
// transactions running), worked out when served.

export interface Body {
  contentType: string;
  text: string;
}

/** A record as served: field → value, in the order written. */
export type WireRecord = { readonly [field: string]: XmlValue };

const json = (value: unknown): Body => ({ contentType: 'application/json; charset=utf-8', text: JSON.stringify(value) });
const xml = (text: string): Body => ({ contentType: 'application/xml; charset=utf-8', text });

/** One answer of a read, shaped by its row: a list of wrapped records, or one wrapped record. */
export function answer(shape: SandboxAnswerShape, records: WireRecord | WireRecord[], format: WireFormat, xmlFields?: readonly string[]): Body {
  if (shape.kind === 'list') {
    const list = Array.isArray(records) ? records : [records];
    if (format === 'json') return json(list.map((r) => ({ [shape.itemName]: r })));
    return xml(xmlList(shape.listName, shape.itemName, list, xmlFields));
  }
  const record = Array.isArray(records) ? (records[0] ?? {}) : records;
  return format === 'json' ? json({ [shape.name]: record }) : xml(xmlDocument(shape.name, record, xmlFields));
}

/** The XML form of a firewall rule carries only this subset of its fields, in this order. */
export const FIREWALL_XML_FIELDS = ['address', 'created_at', 'command', 'id', 'network_interface_id', 'port', 'position', 'protocol', 'updated_at'] as const;

/** Per interface, in position order. */
export function firewallRules(rules: readonly SandboxFirewallRule[]): WireRecord[] {
  return [...rules].sort((a, b) => a.network_interface_id - b.network_interface_id || a.position - b.position).map((r) => ({ ...r }));
}

/** docs/cloud-api.md, Autoscaling rules: per resource (memory, cpu, disk), up then down. */
export const AUTOSCALING_SLOTS: ReadonlyArray<readonly [AutoscalingResource, ScaleType]> = [
  ['memory', 'up'],
  ['memory', 'down'],
  ['cpu', 'up'],
  ['cpu', 'down'],
  ['disk', 'up'],
  ['disk', 'down'],
];

function autoscalingRecord(vmId: number, resource: AutoscalingResource, scaleType: ScaleType, rule: SandboxAutoscalingRule | undefined): WireRecord {
  return {
    id: rule?.id ?? null,
    virtual_machine_id: vmId,
    resource,
    scale_type: scaleType,
    limit_trigger: rule?.limit_trigger ?? null,
    for_minutes: rule?.for_minutes ?? null,
    adjust_units: rule?.adjust_units ?? null,
    up_to: rule?.up_to ?? null,
    // The older names carry the same values.
    above: rule?.limit_trigger ?? null,
    add_units: rule?.adjust_units ?? null,
    created_at: rule?.created_at ?? null,
    updated_at: rule?.updated_at ?? null,
  };
}

/** Always six entries; a slot without a rule is a placeholder. */
export function autoscaling(server: SandboxServer): WireRecord[] {
  return AUTOSCALING_SLOTS.map(([resource, scaleType]) =>
    autoscalingRecord(
      server.id,
      resource,
      scaleType,
      server.autoscaling.find((r) => r.resource === resource && r.scale_type === scaleType),
    ),
  );
}

/** A disk, locked while a transaction on it runs (a new one until it is built). */
export function disk(state: SandboxState, d: SandboxDisk): WireRecord {
  return { ...d, locked: d.locked || state.lockOf('disks', d.id) !== undefined };
}

/** A backup, locked while a transaction on it runs (a restore). */
export function backup(state: SandboxState, b: SandboxBackup): WireRecord {
  return { ...b, locked: b.locked || state.lockOf('backups', b.id) !== undefined };
}

/**
 * A server as real clouds send it: many keys the bot does not read, and its
 * credentials (fake ones here), so that reading from an allow-list is tested on
 * every run. Locked while a transaction on it runs.
 */
export function server(state: SandboxState, s: SandboxServer): WireRecord {
  return {
    add_to_marketplace: null,
    admin_note: null,
    allowed_hot_migrate: true,
    allowed_swap: true,
    booted: s.booted,
    built: s.built,
    cpu_shares: s.cpu_shares,
    cpus: s.cpus,
    created_at: s.created_at,
    customer_network_id: null,
    deleted_at: null,
    enable_autoscale: s.enable_autoscale,
    enable_monitis: false,
    firewall_notrack: false,
    hostname: s.hostname,
    hypervisor_id: s.hypervisor_id,
    id: s.id,
    identifier: s.identifier,
    initial_root_password: s.initial_root_password,
    initial_root_password_encrypted: false,
    iso_id: null,
    label: s.label,
    local_remote_access_ip_address: '10.0.3.14',
    local_remote_access_port: 5900 + (s.id % 100),
    locked: state.lockOf('servers', s.id) !== undefined,
    memory: s.memory,
    min_disk_size: 5,
    note: null,
    operating_system: s.operating_system,
    operating_system_distro: s.operating_system_distro,
    preferred_hvs: [1, 2],
    recovery_mode: s.recovery_mode,
    remote_access_password: s.remote_access_password,
    service_password: s.service_password,
    state: s.state,
    storage_server_type: null,
    strict_virtual_machine_id: null,
    suspended: s.suspended,
    template_id: s.template_id,
    template_label: s.template_label,
    updated_at: s.updated_at,
    user_id: 7,
    vip: null,
    xen_id: null,
    ip_addresses: s.ip_addresses.map((ip) => ({ ip_address: { ...ip } })),
    monthly_bandwidth_used: '0',
    total_disk_size: s.disks.reduce((sum, d) => sum + d.disk_size, 0),
    price_per_hour: 0.0125,
    price_per_hour_powered_off: 0.0014,
    support_incremental_backups: true,
    cpu_priority: 1,
  };
}

/** docs/cloud-api.md, Status: the fields `/status` answers with, and no more. */
export function serverStatus(state: SandboxState, s: SandboxServer): WireRecord {
  return {
    id: s.id,
    identifier: s.identifier,
    hostname: s.hostname,
    template_id: s.template_id,
    built: s.built,
    locked: state.lockOf('servers', s.id) !== undefined,
    booted: s.booted,
    operating_system: s.operating_system,
    suspended: s.suspended,
    enable_autoscale: s.enable_autoscale,
    state: s.state,
  };
}

/** A transaction as the API serves it: its raw log only with `?detailed`, as newer clouds do. */
export function transaction(t: SandboxTransaction, detailed: boolean): WireRecord {
  return {
    action: t.action,
    actor: null,
    allowed_cancel: t.allowed_cancel && t.status === 'pending',
    associated_object_id: t.associated_object_id,
    associated_object_type: t.associated_object_type,
    chain_id: null,
    created_at: t.created_at,
    dependent_transaction_id: t.dependent_transaction_id,
    id: t.id,
    identifier: t.identifier,
    params: { ...t.params },
    parent_id: t.parent_id,
    parent_type: t.parent_type,
    pid: t.status === 'running' ? 2180 + t.id : null,
    priority: 10,
    scheduled: false,
    started_at: t.started_at,
    status: t.status,
    updated_at: t.updated_at,
    user_id: 7,
    ...(detailed ? { log_output: t.log_output } : {}),
  };
}

/** 401 body: `{"error": "..."}` / `<errors><error>…</error></errors>`. */
export function singleError(message: string, format: WireFormat): Body {
  return format === 'json' ? json({ error: message }) : xml(xmlErrors([message]));
}

/** 403/404 body: `{"errors": ["..."]}`. */
export function errorList(messages: readonly string[], format: WireFormat): Body {
  return format === 'json' ? json({ errors: messages }) : xml(xmlErrors(messages));
}

/** 422 body: `{"errors": {"field": ["msg"]}}`; in XML each message is prefixed with its field. */
export function fieldErrors(errors: FieldErrors, format: WireFormat): Body {
  if (format === 'json') return json({ errors });
  return xml(xmlErrors(Object.entries(errors).flatMap(([name, messages]) => messages.map((m) => `${name} ${m}`))));
}
