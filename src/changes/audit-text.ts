import { CloudError, isCloudError, mayHaveApplied } from '../cloud/errors';
import type { Freeze } from '../store';
import type { Decision } from './policy';

// What an audit record keeps in words: bounded, and never more than the
// form's own fields.

/** Strings kept in an audit record of a form that was not executed (denied, invalid) are cut to this. */
export const MAX_AUDITED_TEXT = 300;
export const MAX_DETAIL_LENGTH = 1000;

export function asCloudError(thrown: unknown): CloudError {
  if (isCloudError(thrown)) return thrown;
  return new CloudError('bad_response', 'something unexpected went wrong while calling the cloud API', { cause: thrown });
}

export function failureDetail(error: CloudError, thrown: unknown): string {
  const parts = [isCloudError(thrown) ? error.message : `unexpected ${describeThrown(thrown)}`];
  const fields = Object.entries(error.fieldErrors).map(([field, messages]) => `${field}: ${messages.join(', ')}`);
  if (fields.length > 0) parts.push(fields.join('; '));
  if (mayHaveApplied(error) || !isCloudError(thrown)) parts.push('the change may or may not have been applied: check before retrying');
  return parts.join(' — ');
}

function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${clip(thrown.message, 200)}`;
  return clip(String(thrown), 200);
}

/** Only the form's own fields, strings cut short: an audit record is not a place for 100 KB of pasted text. */
export function bounded(values: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field];
    if (value === undefined) continue;
    out[field] =
      typeof value === 'string'
        ? clip(value, MAX_AUDITED_TEXT)
        : typeof value === 'boolean' || typeof value === 'number'
          ? value
          : clip(JSON.stringify(value), MAX_AUDITED_TEXT);
  }
  return out;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A refusal in the audit's words (not the user's: src/slack/blocks words those). */
export function denialDetail(decision: Decision): string | null {
  const { denial, role, needed } = decision;
  switch (denial?.code) {
    case 'role':
      return `role ${role}, needs ${needed}${decision.onCall?.state === 'unchecked' ? '; on call could not be checked (PagerDuty did not answer)' : ''}`;
    case 'no_change_roles':
      return `needs ${needed}; no admins or operators are configured`;
    case 'channel':
      return `channel ${denial.channelId ?? 'unknown'} is not in VS_MUTATION_CHANNELS (${denial.allowedChannels.join(', ') || 'none'})`;
    case 'not_member':
      return `from a shortcut, for channel ${denial.channelId}, which the user is not a member of`;
    case 'check_failed':
      return 'the role check failed';
    case 'frozen':
      return frozenDetail(denial.freeze);
    case 'own_request':
      return 'the requester may not approve their own request';
    case 'not_requester':
      return `only the requester, ${denial.requestedBy}, may withdraw it`;
    case 'own_use':
      return 'the one who made a change under break glass may not acknowledge it';
    case 'requester':
      return `the requester ${denial.requestedBy} could no longer ask for it: ${denialDetail({ ...decision, ...denial.theirs }) ?? 'refused'}`;
    default:
      return null;
  }
}

/** The freeze that refused a change, in the audit's words. */
export function frozenDetail(freeze: Freeze): string {
  return `changes are frozen (by ${freeze.by} at ${freeze.at}: ${clip(freeze.reason, 200)})`;
}

/**
 * The freeze a denial's detail names (what frozenDetail wrote), or null: so that what people read says who froze
 * and when as a mention and a date each reader sees in their own time zone, not as the audit's ids.
 */
export function readFrozenDetail(detail: string): Freeze | null {
  const m = /^changes are frozen \(by ([UW][A-Z0-9]{1,30}) at (\d{4}-\d\d-\d\dT[0-9:.]+Z): ([\s\S]*)\)$/.exec(detail);
  return m ? { by: m[1]!, at: m[2]!, reason: m[3]! } : null;
}
