import type { Logger } from '../log';
import type { OnCallEntry, PagerDutyRest } from './pagerduty';

// Who is on call now (docs/product.md, On call): a Slack person is matched to a PagerDuty user by email (Slack's
// users.info, then PagerDuty's `GET /users?query=`), and who is on call comes from `GET /oncalls` for the configured
// schedules, or escalation policies up to a level. Both answers are kept for the cache time, and a lookup that is
// under way is shared (single flight): PagerDuty is asked at most once per person, and once for the whole list, per
// cache period, however many checks come meanwhile. An entry kept is counted only while its own start and end say
// it is on (a shift ending mid-cache ends on time). What cannot be checked (PagerDuty down, slow, refusing the key;
// Slack not giving the email) is `unknown`, and is kept a short while too, so that an outage costs each person one
// wait per while rather than one per check; the policy then counts the configured roles only. No Slack here: the
// email comes through a port.

/** Whether a person is on call now: the shift that lasts longest, not on call, or could not be checked. */
export type OnCallAnswer = { state: 'on_call'; shift: OnCallEntry } | { state: 'off_call' } | { state: 'unknown' };

/** Who is on call now in the configured schedules and policies, or could not be read. */
export type OnCallList = { state: 'known'; entries: OnCallEntry[] } | { state: 'unknown' };

/** A Slack person's email (Slack's users.info, scope users:read.email); null when their profile shows none. */
export interface EmailDirectory {
  emailOf(userId: string): Promise<string | null>;
}

export interface OnCallSettings {
  scheduleIds: readonly string[];
  escalationPolicyIds: readonly string[];
  /** Escalation levels counted in the policies, 1 to this. */
  maxLevel: number;
  cacheMs: number;
}

export interface OnCall {
  /** Whether `userId` (Slack) is on call now. Never rejects: what cannot be checked is `unknown`. */
  shiftOf(userId: string): Promise<OnCallAnswer>;
  /** Everyone on call now in the configured schedules and policies (`/vs oncall`). Never rejects. */
  list(): Promise<OnCallList>;
}

export interface OnCallDeps {
  rest: PagerDutyRest;
  emails: EmailDirectory;
  settings: OnCallSettings;
  now?: () => number;
  logger?: Logger;
  /** How long a failed lookup is kept before it is tried again (at most the cache time). */
  failureCacheMs?: number;
}

/** A failed lookup is tried again after this long at most. */
export const DEFAULT_FAILURE_CACHE_MS = 15_000;

type Kept<V> = { ok: true; value: V } | { ok: false };

/** Answers kept for a while by key, a lookup under way shared by everyone who asks meanwhile. */
function keptFor<V>(okMs: number, failedMs: number, now: () => number) {
  const kept = new Map<string, { result: Kept<V>; untilMs: number }>();
  const flights = new Map<string, Promise<Kept<V>>>();
  return (key: string, load: () => Promise<V>, failed: (error: unknown) => void): Promise<Kept<V>> => {
    const hit = kept.get(key);
    if (hit && hit.untilMs > now()) return Promise.resolve(hit.result);
    const flying = flights.get(key);
    if (flying) return flying;
    const flight = (async (): Promise<Kept<V>> => {
      let result: Kept<V>;
      try {
        result = { ok: true, value: await load() };
      } catch (error) {
        failed(error);
        result = { ok: false };
      }
      kept.set(key, { result, untilMs: now() + (result.ok ? okMs : failedMs) });
      return result;
    })().finally(() => flights.delete(key));
    flights.set(key, flight);
    return flight;
  };
}

export function createOnCall(deps: OnCallDeps): OnCall {
  const { rest, emails, settings } = deps;
  const now = deps.now ?? (() => Date.now());
  const log = deps.logger;
  const failedMs = Math.min(settings.cacheMs, deps.failureCacheMs ?? DEFAULT_FAILURE_CACHE_MS);
  const people = keptFor<string | null>(settings.cacheMs, failedMs, now);
  const lists = keptFor<OnCallEntry[]>(settings.cacheMs, failedMs, now);
  const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code ?? 'unknown';

  /** Counted: in a configured schedule (any level), or a configured policy up to the highest level counted; on now. */
  const counts = (e: OnCallEntry, atMs: number) =>
    ((e.schedule !== null && settings.scheduleIds.includes(e.schedule.id)) ||
      (settings.escalationPolicyIds.includes(e.escalationPolicy.id) && e.level <= settings.maxLevel)) &&
    (e.start === null || Date.parse(e.start) <= atMs) &&
    (e.end === null || Date.parse(e.end) > atMs);

  async function list(): Promise<OnCallList> {
    const read = await lists(
      'now',
      () => rest.onCallAt(settings, new Date(now())),
      (error) => log?.warn('could not read who is on call from PagerDuty; on-call grants no role until it answers', { error: codeOf(error) }),
    );
    if (!read.ok) return { state: 'unknown' };
    const atMs = now();
    return { state: 'known', entries: read.value.filter((e) => counts(e, atMs)) };
  }

  /** The PagerDuty user a Slack person is, by email; null when either side knows no such email. */
  const pagerDutyUserOf = (userId: string) =>
    people(
      userId,
      async () => {
        const email = await emails.emailOf(userId);
        return email ? rest.userIdByEmail(email) : null;
      },
      (error) =>
        log?.warn('could not match a person to PagerDuty by email; on-call grants them no role until it answers', { user: userId, error: codeOf(error) }),
    );

  return {
    list,
    async shiftOf(userId) {
      const [person, onCall] = await Promise.all([pagerDutyUserOf(userId), list()]);
      if (!person.ok || onCall.state === 'unknown') return { state: 'unknown' };
      if (person.value === null) return { state: 'off_call' };
      const shifts = onCall.entries.filter((e) => e.pagerDutyUserId === person.value);
      if (shifts.length === 0) return { state: 'off_call' };
      // The shift that lasts longest says "until when": a permanent one first.
      const endOf = (e: OnCallEntry) => (e.end === null ? Infinity : Date.parse(e.end));
      const shift = shifts.reduce((best, e) => (endOf(e) > endOf(best) ? e : best));
      return { state: 'on_call', shift };
    },
  };
}
