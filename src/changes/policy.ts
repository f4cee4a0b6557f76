import type { Config } from '../config';
import type { Logger } from '../log';
import type { OnCallAnswer, OnCallEntry } from '../oncall';
import type { Freeze } from '../store';
import { CHANGE_ACTIONS, CHANGES, isChangeAction, type ChangeAction } from './definitions';
import { atLeast, type Role } from './roles';

// Who may do what, decided in one place. Roles come from user ids and
// user-group ids in the config; groups are resolved through the directory
// (Slack's usergroups.users.list) and cached briefly, so "whoever is in
// @oncall-infra right now" works. Being on call (PagerDuty, src/oncall) is a
// source of more: asked only when the configured role falls short and the
// on-call role would do. Every doubt resolves to "no".

export type { Role } from './roles';
export { atLeast } from './roles';

/** What the policy decides that is not a change through the door: reading servers, reading the audit trail. */
export type ReadAction = 'read' | 'audit_read';
/**
 * Switching every change off and on again (`/vs freeze`, `/vs unfreeze`), and acknowledging a change made under break
 * glass: the door asks, and records a refusal.
 */
export type ControlAction = 'freeze' | 'breakglass_ack';
/** Everything the policy is asked about: a read, one of the changes of definitions.ts, or the freeze. */
export type Action = ReadAction | ChangeAction | ControlAction;

/**
 * Who holds a role now, as the roles are configured: its user groups (S…, whose members hold it) and the people who
 * hold it by their own id (U…, W…). A person is counted once, under the highest role they hold.
 */
export interface RoleHolders {
  role: Exclude<Role, 'none'>;
  groups: readonly string[];
  users: readonly string[];
}

/** Why a change or a read was refused, as data; src/slack/blocks words it. */
export type Denial =
  /** The user's role is below the one needed; `holders`: who holds it, or a higher one, now (Policy.holders). */
  | { code: 'role'; holders: readonly RoleHolders[] }
  /** The role needed is a change role, and nobody has one (no VS_ADMINS, no VS_OPERATORS). */
  | { code: 'no_change_roles' }
  /** Asked outside VS_MUTATION_CHANNELS (channelId null: from an unknown channel). */
  | { code: 'channel'; channelId: string | null; allowedChannels: readonly string[] }
  /** From a shortcut, for a channel the user is not a member of. */
  | { code: 'not_member'; channelId: string }
  /** The check itself failed (the directory or the store); the answer is no. */
  | { code: 'check_failed' }
  /** Changes are frozen (`/vs freeze`): who froze, when and why. The door adds it; the policy never does. */
  | { code: 'frozen'; freeze: Freeze }
  /** An approval clicked by the person who asked for the change: a second person must approve it. The door adds it. */
  | { code: 'own_request' }
  /**
   * Approve, when the one who asked could no longer ask for the change now (their role, the request's channel): the
   * policy's answer for them, and who they are. The door adds it.
   */
  | { code: 'requester'; requestedBy: string; theirs: Pick<Decision, 'role' | 'needed' | 'denial'> }
  /** Withdraw, clicked by someone other than the one who asked for the change. The door adds it. */
  | { code: 'not_requester'; requestedBy: string }
  /** Acknowledge, clicked on a break-glass use by the one who made the change: another admin reviews it. The door adds it. */
  | { code: 'own_use' };

/**
 * How being on call counted (docs/product.md, On call): the role came from a shift now (`granted`), or on-call could not
 * be checked (`unchecked`: PagerDuty did not answer, so only the configured role counted).
 */
export type OnCallNote = { state: 'granted'; role: Role; shift: OnCallEntry } | { state: 'unchecked' };

export interface Decision {
  allowed: boolean;
  action: Action;
  /** The user's role at the time of the check. */
  role: Role;
  /** The role the action needs. */
  needed: Role;
  /** Why not; null when allowed. */
  denial: Denial | null;
  /** Set when being on call was asked about: the role came from it, or it could not be checked. */
  onCall?: OnCallNote;
}

/** A person's role now and where it comes from (`/vs whoami`, the Home tab). */
export interface Standing {
  role: Role;
  /** The role the configuration gives (VS_ADMINS, VS_OPERATORS, VS_VIEWERS and their groups). */
  configured: Role;
  /** Set when being on call was asked about (the configured role is below VS_ONCALL_ROLE). */
  onCall?: OnCallNote;
}

/** Roles from being on call: VS_ONCALL_ROLE for whoever PagerDuty says is on call now (src/oncall). */
export interface OnCallRoles {
  role: Role;
  shiftOf(userId: string): Promise<OnCallAnswer>;
}

/** Members of a user group (S…). The Slack side implements it with usergroups.users.list. */
export interface GroupDirectory {
  membersOf(groupId: string): Promise<string[]>;
}

/** Who is in a channel. The Slack side implements it with conversations.members. */
export interface ChannelDirectory {
  isMember(userId: string, channelId: string): Promise<boolean>;
}

/** How the channel of a request is known. */
export interface WhereFrom {
  /**
   * From a global shortcut, before its form names a channel: only the role
   * is checked now, the channel at submission.
   */
  channelChosenLater?: boolean;
  /**
   * The channel was picked in a shortcut's form, not typed in: a change must
   * be made where the user is (a member), not merely announced there.
   */
  channelChosenInForm?: boolean;
}

export interface Policy {
  /** The role a person holds now: configured, or from being on call when that is more. */
  roleOf(userId: string): Promise<Role>;
  /** The role a person holds now and where it comes from. */
  standing(userId: string): Promise<Standing>;
  /** `channelId` null: unknown, which a channel restriction refuses. */
  can(userId: string, action: Action, channelId: string | null, where?: WhereFrom): Promise<Decision>;
  /** What the role may do, for `/vs whoami`. */
  allows(role: Role): Action[];
  /**
   * Who holds `needed` or a higher role now, lowest role first, for a refusal to name (docs/product.md, One outcome:
   * "names who holds it now"); roles nobody holds are left out, and everyone holding the viewer role (VS_VIEWERS unset)
   * is no one to name.
   */
  holders(needed: Role): RoleHolders[];
  /** False when there are no admins and no operators: nobody can change anything. */
  readonly changeRolesConfigured: boolean;
  /**
   * Whether a workflow step may read. Nothing in a workflow proves who started it, so a step reads as anyone
   * would: only while everyone is a viewer (VS_VIEWERS unset), unless VS_WORKFLOW_READS=everyone.
   */
  readonly workflowsMayRead: boolean;
}

export interface PolicyDeps {
  /** Needed for changes from shortcuts under VS_MUTATION_CHANNELS; without it such changes are refused. */
  channels?: ChannelDirectory;
  now?: () => number;
  logger?: Logger;
  /** How long a failed group lookup counts as "no members" before it is tried again. */
  failureCacheMs?: number;
  /** A lookup that has not answered by then counts as failed (a hung directory must not hang every check). */
  lookupTimeoutMs?: number;
  /** Roles from being on call (VS_ONCALL_PROVIDER); unset: only the configured roles. */
  onCall?: OnCallRoles;
}

const OTHERS_NEED: Record<ReadAction | ControlAction, Role> = { read: 'viewer', audit_read: 'admin', freeze: 'admin', breakglass_ack: 'admin' };

/** Every action, in the order `/vs whoami` lists them. */
export const ACTIONS: readonly Action[] = ['read', ...CHANGE_ACTIONS, 'audit_read', 'freeze', 'breakglass_ack'];

/** The role an action needs: a read's and the freeze's are here, a change's in its definition. */
export function neededRole(action: Action): Role {
  return isChangeAction(action) ? CHANGES[action].needed : OTHERS_NEED[action];
}

/** A failed lookup is retried this soon at most (or sooner, if the cache time is shorter). */
export const DEFAULT_FAILURE_CACHE_MS = 5000;

export const DEFAULT_LOOKUP_TIMEOUT_MS = 15_000;

const isGroupId = (id: string) => id.startsWith('S');

/** The roles that may be held, lowest first. */
const HELD_ROLES = ['viewer', 'operator', 'admin'] as const;

/** Who holds each role by the configured ids, lowest role first, a person or group under the highest role that names them. */
function roleHolders(roles: Pick<Config['roles'], 'admins' | 'operators' | 'viewers'>, needed: Role): RoleHolders[] {
  const configured = { admin: roles.admins, operator: roles.operators, viewer: roles.viewers ?? [] };
  const higher = new Set<string>();
  const held: RoleHolders[] = [];
  for (const role of [...HELD_ROLES].reverse()) {
    const ids = [...new Set(configured[role])].filter((id) => !higher.has(id));
    ids.forEach((id) => higher.add(id));
    if (!atLeast(role, needed)) continue;
    const entry = { role, groups: ids.filter(isGroupId), users: ids.filter((id) => /^[UW]/.test(id)) };
    if (entry.groups.length + entry.users.length > 0) held.unshift(entry);
  }
  return held;
}

interface CachedGroup {
  members: ReadonlySet<string>;
  expiresAtMs: number;
}

export function createPolicy(roles: Config['roles'], groups: GroupDirectory, deps: PolicyDeps = {}): Policy {
  const now = deps.now ?? (() => Date.now());
  const logger = deps.logger;
  const failureCacheMs = Math.min(roles.groupCacheMs, deps.failureCacheMs ?? DEFAULT_FAILURE_CACHE_MS);
  const lookupTimeoutMs = deps.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS;
  const cache = new Map<string, CachedGroup>();
  // Concurrent lookups of one group share one call.
  const inFlight = new Map<string, Promise<ReadonlySet<string>>>();
  // Being on call may be what gives anyone a change role.
  const changeRolesConfigured = roles.admins.length > 0 || roles.operators.length > 0 || (deps.onCall !== undefined && atLeast(deps.onCall.role, 'operator'));
  const mutationChannels = roles.mutationChannels;

  function members(groupId: string): Promise<ReadonlySet<string>> {
    const cached = cache.get(groupId);
    if (cached && cached.expiresAtMs > now()) return Promise.resolve(cached.members);
    const pending = inFlight.get(groupId);
    if (pending) return pending;
    const lookup = (async (): Promise<ReadonlySet<string>> => {
      try {
        // Always asynchronous, so the in-flight entry exists before it is removed.
        await Promise.resolve();
        const list = await withTimeout(groups.membersOf(groupId), lookupTimeoutMs, `looking up ${groupId} took more than ${lookupTimeoutMs} ms`);
        // Only strings can equal a user id: whatever else a broken directory answers never grants a role.
        const set: ReadonlySet<string> = Array.isArray(list) ? new Set(list) : new Set();
        cache.set(groupId, { members: set, expiresAtMs: now() + roles.groupCacheMs });
        return set;
      } catch (error) {
        // Fail closed, and try again soon rather than after the full cache time.
        logger?.warn('could not resolve a user group; its members get no role from it until it resolves', { group: groupId, error });
        const empty: ReadonlySet<string> = new Set<string>();
        cache.set(groupId, { members: empty, expiresAtMs: now() + failureCacheMs });
        return empty;
      } finally {
        inFlight.delete(groupId);
      }
    })();
    inFlight.set(groupId, lookup);
    return lookup;
  }

  async function listed(userId: string, ids: readonly string[]): Promise<boolean> {
    if (ids.includes(userId)) return true;
    const groupIds = ids.filter(isGroupId);
    if (groupIds.length === 0) return false;
    const sets = await Promise.all(groupIds.map(members));
    return sets.some((set) => set.has(userId));
  }

  async function configuredRole(userId: string): Promise<Role> {
    // Highest first: an operator who is also in an admin group is an admin.
    if (await listed(userId, roles.admins)) return 'admin';
    if (await listed(userId, roles.operators)) return 'operator';
    if (roles.viewers === null) return 'viewer';
    if (await listed(userId, roles.viewers)) return 'viewer';
    return 'none';
  }

  /**
   * The configured role, raised by being on call when that is asked (`wanted`: the role that would do; unset: any more
   * than the configured one). PagerDuty is asked only when its role would make a difference; what it cannot answer
   * grants nothing.
   */
  async function standing(userId: string, wanted?: Role): Promise<Standing> {
    const configured = await configuredRole(userId);
    const onCall = deps.onCall;
    if (!onCall || atLeast(configured, onCall.role) || (wanted !== undefined && (atLeast(configured, wanted) || !atLeast(onCall.role, wanted))))
      return { role: configured, configured };
    let answer: OnCallAnswer;
    try {
      answer = await onCall.shiftOf(userId);
    } catch (error) {
      logger?.warn('could not check whether a person is on call; only the configured role counts', { user: userId, error });
      answer = { state: 'unknown' };
    }
    if (answer.state === 'unknown') return { role: configured, configured, onCall: { state: 'unchecked' } };
    if (answer.state === 'off_call') return { role: configured, configured };
    return { role: onCall.role, configured, onCall: { state: 'granted', role: onCall.role, shift: answer.shift } };
  }

  function channelDenial(channelId: string | null): Denial | null {
    if (mutationChannels === null) return null;
    if (channelId !== null && mutationChannels.includes(channelId)) return null;
    return { code: 'channel', channelId, allowedChannels: mutationChannels };
  }

  /** Under VS_MUTATION_CHANNELS, a channel picked in a form counts only if the user is in it; a failed lookup is a no. */
  async function membershipDenial(userId: string, channelId: string): Promise<Denial | null> {
    if (mutationChannels === null) return null;
    try {
      if (!deps.channels) throw new Error('no channel directory');
      const member = await withTimeout(
        deps.channels.isMember(userId, channelId),
        lookupTimeoutMs,
        `looking up the members of ${channelId} took more than ${lookupTimeoutMs} ms`,
      );
      return member ? null : { code: 'not_member', channelId };
    } catch (error) {
      logger?.warn('could not check channel membership; refusing the change', { channel: channelId, error });
      return { code: 'check_failed' };
    }
  }

  return {
    changeRolesConfigured,
    workflowsMayRead: roles.viewers === null || roles.workflowReads === 'everyone',
    roleOf: async (userId) => (await standing(userId)).role,
    standing: (userId) => standing(userId),
    async can(userId, action, channelId, where = {}) {
      const needed = neededRole(action);
      const { role, onCall: note } = await standing(userId, needed);
      const onCall = note ? { onCall: note } : {};
      if (!atLeast(role, needed)) {
        const denial: Denial =
          isChangeAction(action) && !changeRolesConfigured ? { code: 'no_change_roles' } : { code: 'role', holders: roleHolders(roles, needed) };
        return { allowed: false, action, role, needed, denial, ...onCall };
      }
      if (isChangeAction(action) && !where.channelChosenLater) {
        const denial = channelDenial(channelId) ?? (where.channelChosenInForm && channelId !== null ? await membershipDenial(userId, channelId) : null);
        if (denial !== null) return { allowed: false, action, role, needed, denial, ...onCall };
      }
      return { allowed: true, action, role, needed, denial: null, ...onCall };
    },
    allows(role) {
      return ACTIONS.filter((action) => atLeast(role, neededRole(action)));
    },
    holders: (needed) => roleHolders(roles, needed),
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
