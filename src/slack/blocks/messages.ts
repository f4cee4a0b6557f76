import type { KnownBlock } from '@slack/types';
import type { Action, Role } from '../../changes/policy';
import type { AuditRecord } from '../../store/audit-store';
import { context, fallback, header, safe, section, truncate, withSandbox, type Rendered } from './mrkdwn';

export const USAGE_LINES = [
  '`/vs firewall <vs_id>`: the firewall rules of a server',
  '`/vs autoscaling <vs_id>` (or `/vs as`): its autoscaling rules',
  '`/vs templates [text]`: the template catalogue, filtered by text',
  '`/vs disk add <vs_id>`: add a disk (operators, admins)',
  '`/vs backup restore <backup_id>`: restore a backup onto its disk (admins)',
  '`/vs whoami`: your role and what it allows',
  '`/vs audit [n]`: the latest audit records (admins)',
  '`/vs help`: this help',
];

export function renderHelp({ sandbox }: { sandbox: boolean }): Rendered {
  return {
    text: 'vs-chatops: inspect and change virtual servers. Try /vs firewall 42',
    blocks: withSandbox([section(`*vs-chatops* inspects and changes virtual servers.\n${USAGE_LINES.map((l) => `• ${l}`).join('\n')}`)], sandbox),
  };
}

/** Usage after a wrong command, with the closest valid one when there is one. */
export function renderUsage({ message, suggestion }: { message: string; suggestion?: string }): Rendered {
  const hint = suggestion ? `\nDid you mean \`${safe(suggestion, 80)}\`?` : '';
  return {
    text: fallback(`${message}${suggestion ? ` Did you mean ${suggestion}?` : ''}`),
    blocks: [section(`${message}${hint}`), context(`Commands: ${USAGE_LINES.map((l) => l.split(':')[0]).join(' · ')}`)],
  };
}

export function renderError(text: string): Rendered {
  return { text: fallback(text), blocks: [section(`:warning: ${text}`)] };
}

const ACTION_NAMES: Record<Action, string> = {
  read: 'Reading server details',
  disk_add: 'Adding a disk',
  backup_restore: 'Restoring a backup',
  audit_read: 'Reading the audit trail',
};

export function renderDenied({ action, needed, reason }: { action: Action; needed: Role; reason: string | null }): Rendered {
  const text = reason ?? `${ACTION_NAMES[action]} needs the ${needed} role.`;
  return { text: fallback(text), blocks: [section(`:no_entry: ${text}`), context('Roles are set by the bot operator (VS_ADMINS, VS_OPERATORS, VS_VIEWERS). `/vs whoami` shows yours.')] };
}

export function renderWhoami(o: {
  userId: string;
  role: Role;
  allows: string[];
  mutationChannels: string[] | null;
  noChangeRolesConfigured: boolean;
  sandbox: boolean;
}): Rendered {
  const lines = [
    `<@${safe(o.userId, 20)}>, your role is *${o.role === 'none' ? 'none' : o.role}*.`,
    o.allows.length ? `You may: ${o.allows.join('; ')}.` : 'You may not use the read commands: ask an admin to add you to VS_VIEWERS.',
  ];
  if (o.noChangeRolesConfigured) lines.push('No admin or operator is configured, so nobody can change anything through this bot.');
  if (o.mutationChannels) lines.push(`Changes are allowed only in ${o.mutationChannels.map((c) => `<#${safe(c, 20)}>`).join(', ')}.`);
  return { text: fallback(`Your role is ${o.role}`), blocks: withSandbox([section(lines.join('\n'))], o.sandbox) };
}

const OUTCOME_MARK = { succeeded: ':white_check_mark:', failed: ':x:', denied: ':no_entry:', invalid: ':pencil2:' } as const;

function recordLine(r: AuditRecord): string {
  const status = r.apiStatus != null ? ` · API ${r.apiStatus}` : '';
  const detail = r.detail ? ` · ${safe(r.detail, 150)}` : '';
  return `${OUTCOME_MARK[r.outcome]} \`${safe(r.at.slice(0, 19).replace('T', ' '), 20)}\` <@${safe(r.userId, 20)}> *${safe(r.action, 20)}* ${safe(r.target, 40)} → ${r.outcome}${status} · ${r.durationMs} ms${r.channelId ? ` · <#${safe(r.channelId, 20)}>` : ''}${detail}`;
}

export function renderAuditRecords({ records }: { records: readonly AuditRecord[] }): Rendered {
  if (records.length === 0) return { text: 'No audit records yet', blocks: [section('No audit records yet: nobody has attempted a change.')] };
  const blocks: KnownBlock[] = [header(`Audit trail · latest ${records.length}`)];
  let chunk: string[] = [];
  let size = 0;
  for (const line of records.map(recordLine)) {
    if (size + line.length > 2900 && chunk.length) {
      blocks.push(section(chunk.join('\n')));
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += line.length + 1;
  }
  if (chunk.length) blocks.push(section(chunk.join('\n')));
  return { text: fallback(`Latest ${records.length} audit records`), blocks: blocks.slice(0, 50) };
}

/** One record, as posted to VS_AUDIT_CHANNEL. */
export function renderAuditPost(r: AuditRecord): Rendered {
  const params = truncate(JSON.stringify(r.params), 1500);
  return {
    text: fallback(`${r.action} ${r.target} by ${r.userId}: ${r.outcome}`),
    blocks: [section(recordLine(r)), context(`params: \`${safe(params, 1600)}\``)],
  };
}
