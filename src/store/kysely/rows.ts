import type { Kysely, Selectable, Transaction } from 'kysely';
import { isCloudOutcome, type AuditEntry, type AuditRecord, type RecordedAction, type ChangeOutcome, type OnCallGrant, type RecordedRequest } from '../audit';
import type { AuditRecordsTable, StoreTables } from '../schema';

// What every slice's queries share: the handle (the database or a
// transaction on it), the options, and the conversions between rows and the
// contract's values.

export type Db = Kysely<StoreTables> | Transaction<StoreTables>;
export type Dialect = 'sqlite' | 'postgres';

export interface StoreOptions {
  /** Enqueue a post for each final record (VS_AUDIT_CHANNEL is set). */
  auditPosts: boolean;
  /** Audit records older than this many days are deleted by retention. */
  auditRetentionDays: number;
  /** Enqueue a change event for each change that ends (VS_PAGERDUTY_ROUTING_KEY is set); unset: none. */
  changeEvents?: boolean;
}

export const DEFAULT_STORE_OPTIONS: StoreOptions = { auditPosts: true, auditRetentionDays: 400 };

/** What a slice's implementation is built from. */
export interface SliceDeps {
  db: Kysely<StoreTables>;
  dialect: Dialect;
  options: StoreOptions;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Times are stored as ISO 8601 with milliseconds, so that text comparison (SQLite) orders them. */
export function isoTime(value: string, what: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${what} must be an ISO 8601 time`);
  return new Date(ms).toISOString();
}

export function wholeMs(n: number): number {
  return Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { unreadable: json.slice(0, 200) };
  }
}

export function recordRow(entry: AuditEntry) {
  return {
    at: isoTime(entry.at, 'at'),
    user_id: entry.userId,
    channel_id: entry.channelId,
    action: entry.action,
    target: entry.target,
    params: JSON.stringify(entry.params ?? {}),
    outcome: entry.outcome,
    api_status: entry.apiStatus,
    duration_ms: wholeMs(entry.durationMs),
    detail: entry.detail,
    lease_owner: entry.outcome === 'started' ? (entry.leaseOwner ?? null) : null,
    api_request: entry.apiRequest ? JSON.stringify(recordedRequest(entry.apiRequest)) : null,
    requested_by: entry.requestedBy ?? null,
    decided_by: entry.decidedBy ?? null,
    approval_id: entry.approvalId ?? null,
    workflow_execution_id: entry.workflowExecutionId ?? null,
    // Set once the change is followed to its end (follows.end).
    cloud_outcome: null,
    transaction_ids: null,
    cloud_step: null,
    former_outcome: null,
    on_call: entry.onCall ? JSON.stringify(onCallGrant(entry.onCall)) : null,
    break_glass: entry.breakGlass ?? null,
    server_label: entry.serverLabel ?? null,
    reviewed_by: null,
    reviewed_at: null,
    agent: entry.agent ?? null,
  };
}

/** Only the fields of a grant, whatever else the object carries. */
function onCallGrant(g: OnCallGrant): OnCallGrant {
  return { role: g.role, until: g.until, schedule: g.schedule, escalationPolicy: g.escalationPolicy, level: g.level };
}

/** A grant read back from its JSON text; null when there is none (or it cannot be read as one). */
function readOnCallGrant(json: string | null): OnCallGrant | null {
  if (json === null) return null;
  const o = parseObject(json);
  if (typeof o.role !== 'string' || typeof o.escalationPolicy !== 'string') return null;
  return {
    role: o.role,
    until: typeof o.until === 'string' ? o.until : null,
    schedule: typeof o.schedule === 'string' ? o.schedule : null,
    escalationPolicy: o.escalationPolicy,
    level: typeof o.level === 'number' ? o.level : 1,
  };
}

/** Only the three parts of a request, whatever else the object carries. */
export function recordedRequest(request: RecordedRequest): RecordedRequest {
  return { method: request.method, path: request.path, body: request.body };
}

/** A request read back from its JSON text; null when there is none (or it cannot be read as one). */
export function readRecordedRequest(json: string | null): RecordedRequest | null {
  if (json === null) return null;
  const value = parseObject(json);
  if (typeof value.method !== 'string' || typeof value.path !== 'string') return null;
  return { method: value.method, path: value.path, body: typeof value.body === 'string' ? value.body : null };
}

export function toRecord(row: Selectable<AuditRecordsTable>): AuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    userId: row.user_id,
    channelId: row.channel_id,
    action: row.action as RecordedAction,
    target: row.target,
    params: parseObject(row.params),
    outcome: row.outcome as ChangeOutcome,
    apiStatus: row.api_status,
    durationMs: row.duration_ms,
    detail: row.detail,
    apiRequest: readRecordedRequest(row.api_request),
    requestedBy: row.requested_by,
    decidedBy: row.decided_by,
    approvalId: row.approval_id,
    workflowExecutionId: row.workflow_execution_id,
    cloudOutcome: isCloudOutcome(row.cloud_outcome) ? row.cloud_outcome : null,
    transactionIds: row.transaction_ids === null ? null : readIds(row.transaction_ids),
    cloudStep: row.cloud_step,
    formerOutcome: row.former_outcome,
    onCall: readOnCallGrant(row.on_call),
    breakGlass: row.break_glass,
    serverLabel: row.server_label,
    reviewedBy: row.reviewed_by,
    reviewedAt: row.reviewed_at,
    ...(row.agent === null ? {} : { agent: row.agent }),
  };
}

/** A JSON list of ids read back; what is not one is left out. */
export function readIds(json: string): number[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((id): id is number => Number.isSafeInteger(id)) : [];
  } catch {
    return [];
  }
}
