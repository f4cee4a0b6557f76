import { Agent, request } from 'undici';
import { CodedError } from '../errors';

// PagerDuty's REST API, the two reads on-call roles need (docs/product.md, On call): a person by email
// (`GET /users?query=`) and who is on call now (`GET /oncalls`, since = until = now), each paged with
// limit/offset/more. A read-only key in `Authorization: Token token=…`, never in a URL or a log line. Every call has a
// short deadline: a slow PagerDuty is an unreachable one, and the role check fails closed.

/** One on-call entry as the bot keeps it: who (PagerDuty's id and name), through what, since and until when (null: permanent). */
export interface OnCallEntry {
  pagerDutyUserId: string;
  /** PagerDuty's name for them (text from PagerDuty: shown escaped). */
  name: string;
  schedule: { id: string; name: string } | null;
  escalationPolicy: { id: string; name: string };
  /** 1: the first paged. */
  level: number;
  start: string | null;
  end: string | null;
}

export interface OnCallQuery {
  scheduleIds: readonly string[];
  escalationPolicyIds: readonly string[];
}

export interface PagerDutyRest {
  /** PagerDuty's id of the user with exactly this email (case aside); null when there is none. */
  userIdByEmail(email: string): Promise<string | null>;
  /** Every entry on call at `at` in those schedules, and in those escalation policies (one query each, every page). */
  onCallAt(query: OnCallQuery, at: Date): Promise<OnCallEntry[]>;
  close(): Promise<void>;
}

/** PagerDuty could not answer in time, or answered something else than a page of what was asked. */
export class PagerDutyError extends CodedError {
  override readonly name = 'PagerDutyError';
  constructor(
    readonly code: 'PAGERDUTY_UNREACHABLE' | 'PAGERDUTY_REFUSED' | 'PAGERDUTY_UNREADABLE',
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

/** A read that does not answer within this is a failure: the check fails closed instead of holding up a person. */
export const PAGERDUTY_TIMEOUT_MS = 2500;
/** Pages read per question at most (100 entries each): a bound, not a limit anyone reaches. */
const MAX_PAGES = 20;
const PAGE_SIZE = 100;

export interface PagerDutyRestOptions {
  /** VS_PAGERDUTY_API_URL, without a trailing slash. */
  apiUrl: string;
  token: string;
  timeoutMs?: number;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const reference = (v: unknown): { id: string; name: string } | null => {
  if (v === null || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  return typeof o.id === 'string' ? { id: o.id, name: text(o.summary) || text(o.name) || o.id } : null;
};
const time = (v: unknown): string | null => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? new Date(v).toISOString() : null);

/** An entry of `GET /oncalls`, or null when it names no user or policy. */
function entryOf(raw: unknown): OnCallEntry | null {
  if (raw === null || typeof raw !== 'object') return null;
  const o = raw as Record<string, unknown>;
  const user = reference(o.user);
  const policy = reference(o.escalation_policy);
  if (!user || !policy) return null;
  const level = typeof o.escalation_level === 'number' && Number.isInteger(o.escalation_level) ? o.escalation_level : 1;
  return {
    pagerDutyUserId: user.id,
    name: user.name,
    schedule: reference(o.schedule),
    escalationPolicy: policy,
    level,
    start: time(o.start),
    end: time(o.end),
  };
}

export function createPagerDutyRest(options: PagerDutyRestOptions): PagerDutyRest {
  const timeoutMs = options.timeoutMs ?? PAGERDUTY_TIMEOUT_MS;
  // One pool for PagerDuty, its connections kept: the checks are small, and many come at once when people arrive together
  // (each person's first command asks); a few dozen connections keep them from queueing behind one another.
  const agent = new Agent({ connect: { timeout: timeoutMs }, keepAliveTimeout: 30_000, connections: 32 });

  /** One page: its JSON, or a PagerDutyError (never the key, never the query's email). */
  async function get(path: string, params: [string, string][]): Promise<Record<string, unknown>> {
    const url = new URL(`${options.apiUrl}${path}`);
    for (const [name, value] of params) url.searchParams.append(name, value);
    let response;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: agent,
        headers: { authorization: `Token token=${options.token}`, accept: 'application/vnd.pagerduty+json;version=2' },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || /timeout/i.test(error.name + String((error as { code?: unknown }).code)));
      throw new PagerDutyError('PAGERDUTY_UNREACHABLE', timedOut ? `PagerDuty did not answer within ${timeoutMs} ms` : 'PagerDuty could not be reached');
    }
    if (response.statusCode !== 200) {
      await response.body.dump().catch(() => undefined);
      throw new PagerDutyError('PAGERDUTY_REFUSED', `PagerDuty answered HTTP ${response.statusCode} to GET ${path}`, response.statusCode);
    }
    let body: unknown;
    try {
      body = await response.body.json();
    } catch {
      throw new PagerDutyError('PAGERDUTY_UNREADABLE', `PagerDuty's answer to GET ${path} could not be read`);
    }
    if (body === null || typeof body !== 'object') throw new PagerDutyError('PAGERDUTY_UNREADABLE', `PagerDuty's answer to GET ${path} is not an object`);
    return body as Record<string, unknown>;
  }

  /** Every page of a list (`key` in each answer), up to MAX_PAGES. */
  async function all(path: string, params: [string, string][], key: string): Promise<unknown[]> {
    const items: unknown[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const body = await get(path, [...params, ['limit', String(PAGE_SIZE)], ['offset', String(page * PAGE_SIZE)]]);
      const list = body[key];
      if (!Array.isArray(list)) throw new PagerDutyError('PAGERDUTY_UNREADABLE', `PagerDuty's answer to GET ${path} has no list of ${key}`);
      items.push(...(list as unknown[]));
      if (body.more !== true || list.length === 0) break;
    }
    return items;
  }

  return {
    async userIdByEmail(email) {
      const wanted = email.toLowerCase();
      const users = await all('/users', [['query', email]], 'users');
      for (const user of users) {
        const o = (user ?? {}) as Record<string, unknown>;
        if (typeof o.id === 'string' && text(o.email).toLowerCase() === wanted) return o.id;
      }
      return null;
    },

    async onCallAt(query, at) {
      const instant = at.toISOString();
      const window: [string, string][] = [
        ['since', instant],
        ['until', instant],
        ['earliest', 'true'],
      ];
      // One question per kind: PagerDuty reads the two filters together as "both", and either is enough here.
      const asked = [
        ...(query.scheduleIds.length > 0 ? [query.scheduleIds.map((id): [string, string] => ['schedule_ids[]', id])] : []),
        ...(query.escalationPolicyIds.length > 0 ? [query.escalationPolicyIds.map((id): [string, string] => ['escalation_policy_ids[]', id])] : []),
      ];
      const lists = await Promise.all(asked.map((filter) => all('/oncalls', [...filter, ...window], 'oncalls')));
      return lists.flat().flatMap((raw) => entryOf(raw) ?? []);
    },

    close: () => agent.close(),
  };
}
