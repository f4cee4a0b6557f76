import type { AgentAskResult, AgentChangeStatus, Decision } from '../changes';
import { OUTCOME_MEANINGS, targetTitle } from '../changes';
import type { NamedServer, Resolution } from '../cloud/names';

// What the MCP tools answer an agent (docs/product.md, Agents ask, people decide), in words an agent passes on to
// its person: plain text (no Slack markup: src/slack is not reached from here), with ids as they are, and what to do
// next. The structured content beside it carries the same facts as data.

/** A server as an agent reads it: "web-1 (VS 42)". */
export const serverName = (s: Pick<NamedServer, 'id' | 'label'>): string => targetTitle({ kind: 'vs', id: s.id, label: s.label });

/** Why a server name did not resolve to one server. */
export function unresolvedText(r: Exclude<Resolution, { kind: 'one' }>): string {
  if (r.kind === 'several')
    return `"${r.name}" names several servers: ${r.servers.map(serverName).join(', ')}. Ask again with one of their ids, or call find_server.`;
  const closest = r.closest.length > 0 ? ` Did you mean ${r.closest.map(serverName).join(', ')}?` : '';
  return `No server is named "${r.name}".${closest}`;
}

/** A refusal of the policy (role, channel, freeze) in plain words. */
export function agentDeniedText(owner: string, agent: string, decision: Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>): string {
  return `Refused for agent ${agent}, acting for ${owner}: ${denialWords(owner, decision)} Nothing was asked or changed.`;
}

function denialWords(owner: string, d: Pick<Decision, 'action' | 'role' | 'needed' | 'denial'>): string {
  const denial = d.denial;
  switch (denial?.code) {
    case 'role':
    case 'no_change_roles':
      return `${d.action} needs the ${d.needed} role, and ${owner} holds ${d.role === 'none' ? 'none' : `the ${d.role} role`}.`;
    case 'channel':
      return `changes are allowed only in ${denial.allowedChannels.join(', ')} (VS_MUTATION_CHANNELS), and VS_AGENT_CHANNEL is not one of them.`;
    case 'frozen':
      return `changes are frozen by ${denial.freeze.by} since ${denial.freeze.at}${denial.freeze.reason ? `: "${denial.freeze.reason}"` : ''}.`;
    case 'check_failed':
      return 'who may do what could not be checked just now; try again in a moment.';
    default:
      return `${d.action} is not allowed for ${owner} now.`;
  }
}

/** What a request tool answers, as text beside its structured content. */
export function agentAskText(
  result: AgentAskResult,
  o: { owner: string; agent: string; channelId: string; posted: boolean; link: string | null; ownerDecides: boolean },
): string {
  switch (result.outcome) {
    case 'requested': {
      const who = o.ownerDecides
        ? `${o.owner} (for whom you act) or another person with the role it needs`
        : `a second person with the role it needs (not ${o.owner}: this action needs a second person)`;
      const where = o.posted ? `in Slack channel ${o.channelId}${o.link ? ` (${o.link})` : ''}` : `but its message could not be posted in ${o.channelId}`;
      return (
        `Requested ${where}: nothing has been changed. ${who} approves or denies it there. ` +
        `Call change_status with change_id ${result.approval.id} to follow it; do not ask again while it waits.`
      );
    }
    case 'denied':
      return agentDeniedText(o.owner, o.agent, result.decision);
    case 'invalid':
      return `Refused: ${Object.entries(result.fieldErrors)
        .map(([field, message]) => `${field}: ${message}`)
        .join('; ')}. Nothing was asked or changed.`;
    case 'denied_before': {
      const a = result.approval;
      return (
        `Refused: the same request (${a.id}) was denied by ${a.decidedBy ?? 'someone'} at ${a.decidedAt ?? 'an earlier time'}` +
        `${a.decisionReason ? `, because "${a.decisionReason}"` : ', without a reason'}. Do not ask again; ask your person what to do instead.`
      );
    }
    case 'busy': {
      const holder = result.transaction ? `transaction ${result.transaction.action} ${result.transaction.id} runs` : 'another change holds it';
      return `Refused: the target is busy (${holder}). Nothing was asked; try again once it ends.`;
    }
    case 'unfit':
      return `Refused: the target is not in a state this change fits (${result.record.detail ?? 'see change_status'}). Nothing was asked or changed.`;
    case 'failed':
      return `Refused: the target could not be read first (${result.error.message}). Nothing was asked or changed.`;
    case 'duplicate':
      return 'This call was taken already; nothing more was asked.';
  }
}

/** What change_status answers, as text. */
export function agentStatusText(status: Extract<AgentChangeStatus, { found: true }>): string {
  const { approval, outcome, record } = status;
  const decided = approval.decidedBy ? ` Decided by ${approval.decidedBy}${approval.decisionReason ? `: "${approval.decisionReason}"` : ''}.` : '';
  const detail = record?.detail && outcome !== 'requested' ? ` ${record.detail}.` : '';
  return `${approval.id}: ${outcome} (${OUTCOME_MEANINGS[outcome]}).${decided}${detail}`;
}

export const CHANGE_UNKNOWN =
  "No such change among your agents' requests (change_status knows the requests of the agents of the person the token is for; admins see all).";
