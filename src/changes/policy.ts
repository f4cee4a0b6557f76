import type { Config } from '../config';
import type { Logger } from '../log';

// Who may do what, decided in one place. Roles come from user ids and
// user-group ids in the config; groups are resolved through the directory
// (Slack's usergroups.users.list) and cached briefly, so "whoever is in
// @oncall-infra right now" works. Every doubt resolves to "no".

export type Role = 'none' | 'viewer' | 'operator' | 'admin';
export type Action = 'read' | 'disk_add' | 'backup_restore' | 'audit_read';

export interface Decision {
  allowed: boolean;
  /** The user's role at the time of the check. */
  role: Role;
  /** The role the action needs. */
  needed: Role;
  /** Why not, in words the user reads; null when allowed. */
  reason: string | null;
}

/** Members of a user group (S…). The Slack side implements it with usergroups.users.list. */
export interface GroupDirectory {
  membersOf(groupId: string): Promise<string[]>;
}

export interface Policy {
  roleOf(userId: string): Promise<Role>;
  /** `channelId` null: unknown, which a channel restriction refuses. */
  can(userId: string, action: Action, channelId: string | null, options?: { channelChosenLater?: boolean }): Promise<Decision>;
  /** What the role may do, in words, for `/vs whoami`. */
  allows(role: Role): string[];
  /** False when there are no admins and no operators: nobody can change anything. */
  readonly changeRolesConfigured: boolean;
}

export interface PolicyDeps {
  now?: () => number;
  logger?: Logger;
  /** How long a failed group lookup counts as "no members" before it is tried again. */
  failureCacheMs?: number;
  /** A lookup that has not answered by then counts as failed (a hung directory must not hang every check). */
  lookupTimeoutMs?: number;
}

const RANK: Record<Role, number> = { none: 0, viewer: 1, operator: 2, admin: 3 };

/** Whether `role` includes everything `needed` may do. */
export function atLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export const NEEDED: Record<Action, Role> = {
  read: 'viewer',
  disk_add: 'operator',
  backup_restore: 'admin',
  audit_read: 'admin',
};

const CHANGES: ReadonlySet<Action> = new Set<Action>(['disk_add', 'backup_restore']);

/** The action as the subject of a sentence. */
export const ACTION_WORDS: Record<Action, string> = {
  read: 'Reading server details',
  disk_add: 'Adding a disk',
  backup_restore: 'Restoring a backup',
  audit_read: 'Reading the audit trail',
};

const ROLE_WITH_ARTICLE: Record<Role, string> = {
  none: 'you have no role',
  viewer: 'you are a viewer',
  operator: 'you are an operator',
  admin: 'you are an admin',
};

/** A failed lookup is retried this soon at most (or sooner, if the cache time is shorter). */
export const DEFAULT_FAILURE_CACHE_MS = 5000;

export const DEFAULT_LOOKUP_TIMEOUT_MS = 15_000;

const isGroupId = (id: string) => id.startsWith('S');
export const channelMention = (channelId: string) => `<#${channelId}>`;

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
  const changeRolesConfigured = roles.admins.length > 0 || roles.operators.length > 0;
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
        const set = new Set(Array.isArray(list) ? list.filter((m): m is string => typeof m === 'string') : []);
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

  async function roleOf(userId: string): Promise<Role> {
    // Highest first: an operator who is also in an admin group is an admin.
    if (await listed(userId, roles.admins)) return 'admin';
    if (await listed(userId, roles.operators)) return 'operator';
    if (roles.viewers === null) return 'viewer';
    if (await listed(userId, roles.viewers)) return 'viewer';
    return 'none';
  }

  function channelReason(channelId: string | null): string | null {
    if (mutationChannels === null) return null;
    if (channelId !== null && mutationChannels.includes(channelId)) return null;
    const where = mutationChannels.length > 0 ? mutationChannels.map(channelMention).join(', ') : 'no channel';
    const here = channelId === null ? 'the channel of this request is not known' : 'this is not one of them';
    return `Changes are only allowed in ${where}; ${here}.`;
  }

  return {
    changeRolesConfigured,
    roleOf,
    async can(userId, action, channelId, options = {}) {
      const needed = NEEDED[action];
      const role = await roleOf(userId);
      if (RANK[role] < RANK[needed]) {
        const reason =
          CHANGES.has(action) && !changeRolesConfigured
            ? `${ACTION_WORDS[action]} needs the ${needed} role, and nobody has it: no admins or operators are configured (VS_ADMINS, VS_OPERATORS). Ask whoever runs the bot.`
            : `${ACTION_WORDS[action]} needs the ${needed} role; ${ROLE_WITH_ARTICLE[role]}.`;
        return { allowed: false, role, needed, reason };
      }
      if (CHANGES.has(action) && !options.channelChosenLater) {
        const reason = channelReason(channelId);
        if (reason !== null) return { allowed: false, role, needed, reason };
      }
      return { allowed: true, role, needed, reason: null };
    },
    allows(role) {
      const where = mutationChannels === null ? '' : ` (only in ${mutationChannels.length > 0 ? mutationChannels.map(channelMention).join(', ') : 'no channel'})`;
      const out: string[] = [];
      if (RANK[role] >= RANK.viewer) out.push('read firewall rules, autoscaling rules and the template catalogue');
      if (RANK[role] >= RANK.operator) out.push(`add a disk to a server${where}`);
      if (RANK[role] >= RANK.admin) out.push(`restore a disk from a backup${where}`, 'read the audit trail');
      return out;
    },
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
