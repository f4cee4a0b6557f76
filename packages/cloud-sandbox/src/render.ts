import type { FieldErrors } from './disk-params';
import type {
  AutoscalingResource,
  SandboxAutoscalingRule,
  SandboxBackup,
  SandboxDisk,
  SandboxFirewallRule,
  SandboxServer,
  ScaleType,
  WireFormat,
} from './types';
import { xmlDocument, xmlErrors, xmlList } from './xml';

// Records → wire bodies, in the shapes of docs/cloud-api.md: JSON wraps each item
// in its resource key, XML is Rails-style with typed attributes.

export interface Body {
  contentType: string;
  text: string;
}

const json = (value: unknown): Body => ({ contentType: 'application/json; charset=utf-8', text: JSON.stringify(value) });
const xml = (text: string): Body => ({ contentType: 'application/xml; charset=utf-8', text });

/** The XML form of a firewall rule carries only this subset (docs/cloud-api.md, Firewall rules), in this order. */
export const FIREWALL_XML_FIELDS = ['address', 'created_at', 'command', 'id', 'network_interface_id', 'port', 'position', 'protocol', 'updated_at'] as const;

export function firewallRules(rules: readonly SandboxFirewallRule[], format: WireFormat): Body {
  const sorted = [...rules].sort((a, b) => a.network_interface_id - b.network_interface_id || a.position - b.position);
  if (format === 'json') return json(sorted.map((r) => ({ firewall_rule: r })));
  return xml(xmlList('firewall_rules', 'firewall_rule', sorted, FIREWALL_XML_FIELDS));
}

/** Spec 4.2 ordering: per resource (memory, cpu, disk), up then down. */
export const AUTOSCALING_SLOTS: ReadonlyArray<readonly [AutoscalingResource, ScaleType]> = [
  ['memory', 'up'],
  ['memory', 'down'],
  ['cpu', 'up'],
  ['cpu', 'down'],
  ['disk', 'up'],
  ['disk', 'down'],
];

type AutoscalingRecord = {
  id: number | null;
  virtual_machine_id: number;
  resource: AutoscalingResource;
  scale_type: ScaleType;
  limit_trigger: number | null;
  for_minutes: number | null;
  adjust_units: number | null;
  up_to: number | null;
  above: number | null;
  add_units: number | null;
  created_at: string | null;
  updated_at: string | null;
};

function autoscalingRecord(vmId: number, resource: AutoscalingResource, scaleType: ScaleType, rule: SandboxAutoscalingRule | undefined): AutoscalingRecord {
  return {
    id: rule?.id ?? null,
    virtual_machine_id: vmId,
    resource,
    scale_type: scaleType,
    limit_trigger: rule?.limit_trigger ?? null,
    for_minutes: rule?.for_minutes ?? null,
    adjust_units: rule?.adjust_units ?? null,
    up_to: rule?.up_to ?? null,
    // Spec 2.2 rule 2: the older names carry the same values.
    above: rule?.limit_trigger ?? null,
    add_units: rule?.adjust_units ?? null,
    created_at: rule?.created_at ?? null,
    updated_at: rule?.updated_at ?? null,
  };
}

/** Always six entries; a slot without a rule is a placeholder (docs/cloud-api.md, Autoscaling rules). */
export function autoscaling(server: SandboxServer, format: WireFormat): Body {
  const records = AUTOSCALING_SLOTS.map(([resource, scaleType]) =>
    autoscalingRecord(
      server.id,
      resource,
      scaleType,
      server.autoscaling.find((r) => r.resource === resource && r.scale_type === scaleType),
    ),
  );
  if (format === 'json') return json(records.map((r) => ({ auto_scaling_configuration: r })));
  return xml(xmlList('auto_scaling_configurations', 'auto_scaling_configuration', records));
}

export function disk(d: SandboxDisk, format: WireFormat): Body {
  return format === 'json' ? json({ disk: d }) : xml(xmlDocument('disk', d));
}

export function backup(b: SandboxBackup, format: WireFormat): Body {
  return format === 'json' ? json({ backup: b }) : xml(xmlDocument('backup', b));
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
