import { atLeast, createPolicy, type Action, type ChannelDirectory, type GroupDirectory, type Role } from '../../src/changes/policy';
import type { Config } from '../../src/config';
import { allowsText, denialText } from '../../src/slack/blocks/denials';
import { createLogger } from '../../src/log';

type Roles = Config['roles'];

const roles = (overrides: Partial<Roles> = {}): Roles => ({
  admins: ['UADMIN'],
  operators: ['UOPER'],
  viewers: ['UVIEW'],
  mutationChannels: null,
  groupCacheMs: 60_000,
  workflowReads: 'viewers',
  ...overrides,
});

/** A user group directory that counts its calls and can be told to fail or change. */
function fakeDirectory(initial: Record<string, string[]> = {}) {
  const groups = new Map(Object.entries(initial));
  const calls: string[] = [];
  let failing = false;
  const directory: GroupDirectory = {
    async membersOf(groupId) {
      calls.push(groupId);
      await new Promise((r) => setImmediate(r));
      if (failing) throw new Error('usergroups.users.list: ratelimited');
      return groups.get(groupId) ?? [];
    },
  };
  return {
    directory,
    calls,
    set: (groupId: string, members: string[]) => groups.set(groupId, members),
    fail: (on: boolean) => {
      failing = on;
    },
  };
}

const USER_OF: Record<Role, string> = { admin: 'UADMIN', operator: 'UOPER', viewer: 'UVIEW', none: 'UNOBODY' };
const RANK: Record<Role, number> = { none: 0, viewer: 1, operator: 2, admin: 3 };
const NEEDED: Record<Action, Role> = {
  read: 'viewer',
  disk_add: 'operator',
  backup_restore: 'admin',
  // docs/product.md, Roles: operators start, shut down and reboot; admins also force a server off.
  power_start: 'operator',
  power_shutdown: 'operator',
  power_reboot: 'operator',
  power_stop: 'admin',
  audit_read: 'admin',
  freeze: 'admin',
  // docs/product.md, Roles: admins acknowledge break-glass uses.
  breakglass_ack: 'admin',
  // docs/product.md, More of the control panel: operators take a backup.
  backup_take: 'operator',
  firewall_add: 'operator',
  // docs/product.md, More of the control panel: admins remove a firewall rule.
  firewall_remove: 'admin',
};
const ACTIONS = Object.keys(NEEDED) as Action[];
const ROLES: Role[] = ['none', 'viewer', 'operator', 'admin'];
type Where = 'unrestricted' | 'in an allowed channel' | 'in another channel' | 'in an unknown channel';
const WHERE: Where[] = ['unrestricted', 'in an allowed channel', 'in another channel', 'in an unknown channel'];

const table = ACTIONS.flatMap((action) =>
  ROLES.flatMap((role) =>
    WHERE.map((where) => {
      const isChange = !['read', 'audit_read', 'freeze', 'breakglass_ack'].includes(action);
      const channelOk = where === 'unrestricted' || where === 'in an allowed channel' || !isChange;
      return { action, role, where, allowed: RANK[role] >= RANK[NEEDED[action]] && channelOk };
    }),
  ),
);

describe('the role policy', () => {
  test.each(table)('$action by a $role $where is allowed: $allowed', async ({ action, role, where, allowed }) => {
    const restricted = where !== 'unrestricted';
    const policy = createPolicy(roles({ mutationChannels: restricted ? ['CALLOWED', 'CALSO'] : null }), fakeDirectory().directory);
    const channel = where === 'in another channel' ? 'COTHER' : where === 'in an unknown channel' ? null : 'CALLOWED';
    const decision = await policy.can(USER_OF[role], action, channel);
    expect(decision).toMatchObject({ allowed, role, needed: NEEDED[action] });
    if (allowed) {
      expect(decision.denial).toBeNull();
    } else if (RANK[role] < RANK[NEEDED[action]]) {
      expect(denialText(decision)).toContain(`needs the ${NEEDED[action]} role`);
    } else {
      expect(denialText(decision)).toContain('Changes are only allowed in <#CALLOWED>, <#CALSO>');
    }
  });

  test('a denial names the role needed, the role the user has, and who holds it now, in plain words and mentions', async () => {
    const policy = createPolicy(roles(), fakeDirectory().directory);
    expect(denialText(await policy.can('UVIEW', 'disk_add', 'C1'))).toBe(
      'Adding a disk needs the operator role; you are a viewer. Operators: <@UOPER>. Admins: <@UADMIN>.',
    );
    expect(denialText(await policy.can('UOPER', 'backup_restore', 'C1'))).toBe(
      'Restoring a backup needs the admin role; you are an operator. Admins: <@UADMIN>.',
    );
    expect(denialText(await policy.can('UNOBODY', 'read', 'C1'))).toBe(
      'Reading server details needs the viewer role; you have no role. Viewers: <@UVIEW>. Operators: <@UOPER>. Admins: <@UADMIN>.',
    );
  });

  test('who holds a role: its user groups first, at most five people in all, each under the highest role that names them; never a setting', async () => {
    const policy = createPolicy(
      roles({
        admins: ['SSRE', 'UADA', 'UOTTO'],
        operators: ['UO1', 'SONCALL', 'UO2', 'UO3', 'UOTTO', 'UO4', 'UO5', 'UO6'],
        viewers: ['UVIEW', 'UO1'],
      }),
      fakeDirectory().directory,
    );
    expect(policy.holders('operator')).toEqual([
      { role: 'operator', groups: ['SONCALL'], users: ['UO1', 'UO2', 'UO3', 'UO4', 'UO5', 'UO6'] },
      { role: 'admin', groups: ['SSRE'], users: ['UADA', 'UOTTO'] },
    ]);
    const text = denialText(await policy.can('UVIEW', 'power_reboot', 'C1'));
    expect(text).toBe(
      'Rebooting a server needs the operator role; you are a viewer. ' +
        'Operators: <!subteam^SONCALL>, <@UO1>, <@UO2>, <@UO3>, <@UO4>, <@UO5>, 1 more. Admins: <!subteam^SSRE>, 2 more.',
    );
    expect(text).not.toMatch(/VS_[A-Z]+/);
    expect(denialText(await policy.can('UVIEW', 'backup_restore', 'C1'))).toBe(
      'Restoring a backup needs the admin role; you are a viewer. Admins: <!subteam^SSRE>, <@UADA>, <@UOTTO>.',
    );
    const peopleOnly = createPolicy(roles({ admins: ['UA1', 'UA2'], operators: ['UO1', 'UO2', 'UO3', 'UO4', 'UO5'] }), fakeDirectory().directory);
    expect(denialText(await peopleOnly.can('UVIEW', 'disk_add', 'C1'))).toBe(
      'Adding a disk needs the operator role; you are a viewer. Operators: <@UO1>, <@UO2>, <@UO3>, <@UO4>, <@UO5>. And 2 admins.',
    );
  });

  test('the highest role wins when a user is listed more than once', async () => {
    const policy = createPolicy(roles({ admins: ['UX'], operators: ['UX'], viewers: ['UX'] }), fakeDirectory().directory);
    expect(await policy.roleOf('UX')).toBe('admin');
  });

  test('with VS_VIEWERS unset everyone reads, and still nobody unlisted changes anything', async () => {
    const policy = createPolicy(roles({ viewers: null }), fakeDirectory().directory);
    expect(await policy.roleOf('USTRANGER')).toBe('viewer');
    expect((await policy.can('USTRANGER', 'read', 'C1')).allowed).toBe(true);
    expect((await policy.can('USTRANGER', 'disk_add', 'C1')).allowed).toBe(false);
    expect(await policy.roleOf('UOPER')).toBe('operator');
  });

  test('with no configuration nobody can change anything, and the reason says why', async () => {
    const policy = createPolicy(roles({ admins: [], operators: [], viewers: null }), fakeDirectory().directory);
    expect(policy.changeRolesConfigured).toBe(false);
    const decision = await policy.can('UANYONE', 'disk_add', 'C1');
    expect(decision).toMatchObject({ allowed: false, role: 'viewer', needed: 'operator' });
    expect(denialText(decision)).toBe('Adding a disk needs the operator role; you are a viewer. Nobody holds the operator role yet; ask whoever runs the bot.');
    expect((await policy.can('UANYONE', 'read', 'C1')).allowed).toBe(true);
    expect(createPolicy(roles(), fakeDirectory().directory).changeRolesConfigured).toBe(true);
  });

  test('a workflow step may read while everyone is a viewer, or when VS_WORKFLOW_READS=everyone; not when VS_VIEWERS limits reads', () => {
    expect(createPolicy(roles({ viewers: null }), fakeDirectory().directory).workflowsMayRead).toBe(true);
    expect(createPolicy(roles({ viewers: ['UVIEW'] }), fakeDirectory().directory).workflowsMayRead).toBe(false);
    expect(createPolicy(roles({ viewers: ['UVIEW'], workflowReads: 'everyone' }), fakeDirectory().directory).workflowsMayRead).toBe(true);
  });

  test('allows() describes each role in words, with the channel restriction', () => {
    const open = createPolicy(roles(), fakeDirectory().directory);
    expect(open.allows('none')).toEqual([]);
    const words = (policy: typeof open, role: Role, channels: string[] | null = null) => allowsText(policy.allows(role), channels);
    expect(open.allows('viewer')).toHaveLength(1);
    expect(words(open, 'operator').join('\n')).toMatch(/add a disk/);
    expect(words(open, 'operator').join('\n')).not.toMatch(/restore/);
    expect(words(open, 'admin').join('\n')).toMatch(/restore a disk from a backup[\s\S]*audit trail[\s\S]*freeze and unfreeze every change/);
    expect(words(open, 'operator').join('\n')).not.toMatch(/freeze/);
    const restricted = createPolicy(roles({ mutationChannels: ['CINC'] }), fakeDirectory().directory);
    expect(words(restricted, 'operator', ['CINC']).join('\n')).toContain('add a disk to a server (only in <#CINC>)');
  });

  test('atLeast orders the roles: none, viewer, operator, admin', () => {
    for (const role of ROLES) for (const needed of ROLES) expect(atLeast(role, needed)).toBe(RANK[role] >= RANK[needed]);
  });

  test('with only admins (or only operators) configured, a denial names the role needed and who may, not a missing configuration', async () => {
    for (const [only, who] of [
      [{ operators: [] }, 'Admins: <@UADMIN>.'],
      [{ admins: [] }, 'Operators: <@UOPER>.'],
    ] as const) {
      const policy = createPolicy(roles({ viewers: null, ...only }), fakeDirectory().directory);
      expect(policy.changeRolesConfigured).toBe(true);
      const decision = await policy.can('UANYONE', 'disk_add', 'C1');
      expect(decision).toMatchObject({ allowed: false, role: 'viewer', needed: 'operator', denial: { code: 'role' } });
      expect(denialText(decision)).toBe(`Adding a disk needs the operator role; you are a viewer. ${who}`);
    }
    const noAdmin = createPolicy(roles({ viewers: null, admins: [] }), fakeDirectory().directory);
    expect(denialText(await noAdmin.can('UOPER', 'backup_restore', 'C1'))).toBe(
      'Restoring a backup needs the admin role; you are an operator. Nobody holds the admin role yet; ask whoever runs the bot.',
    );
  });

  describe('a channel picked in a shortcut form, under VS_MUTATION_CHANNELS', () => {
    /** A channel directory that knows who is in which channel, and records what it was asked. */
    function fakeChannels(members: Record<string, string[]>) {
      const calls: string[] = [];
      const channels: ChannelDirectory = {
        async isMember(userId, channelId) {
          calls.push(`${userId} in ${channelId}`);
          await new Promise((r) => setImmediate(r));
          return members[channelId]?.includes(userId) ?? false;
        },
      };
      return { channels, calls };
    }
    const inForm = { channelChosenInForm: true };
    const restricted = roles({ mutationChannels: ['CINC', 'CALSO'] });

    test('a member of an allowed channel may change there; someone not in it may not', async () => {
      const { channels, calls } = fakeChannels({ CINC: ['UOPER'] });
      const policy = createPolicy(restricted, fakeDirectory().directory, { channels });
      expect(await policy.can('UOPER', 'disk_add', 'CINC', inForm)).toMatchObject({ allowed: true, denial: null });
      expect(await policy.can('UADMIN', 'backup_restore', 'CINC', inForm)).toMatchObject({
        allowed: false,
        role: 'admin',
        needed: 'admin',
        denial: { code: 'not_member', channelId: 'CINC' },
      });
      expect(calls).toEqual(['UOPER in CINC', 'UADMIN in CINC']);
    });

    test('a channel outside the list is refused before membership is asked', async () => {
      const { channels, calls } = fakeChannels({ COTHER: ['UOPER'] });
      const policy = createPolicy(restricted, fakeDirectory().directory, { channels });
      expect((await policy.can('UOPER', 'disk_add', 'COTHER', inForm)).denial).toEqual({
        code: 'channel',
        channelId: 'COTHER',
        allowedChannels: ['CINC', 'CALSO'],
      });
      expect(calls).toEqual([]);
    });

    test('membership is not asked for reads, for a typed command, without a channel restriction, or before the channel is chosen', async () => {
      const { channels, calls } = fakeChannels({});
      const policy = createPolicy(restricted, fakeDirectory().directory, { channels });
      expect((await policy.can('UOPER', 'read', 'CINC', inForm)).allowed).toBe(true);
      expect((await policy.can('UOPER', 'disk_add', 'CINC')).allowed).toBe(true);
      expect((await policy.can('UOPER', 'disk_add', null, { channelChosenLater: true })).allowed).toBe(true);
      const open = createPolicy(roles(), fakeDirectory().directory, { channels });
      expect((await open.can('UOPER', 'disk_add', 'CANY', inForm)).allowed).toBe(true);
      expect(calls).toEqual([]);
    });

    test('without a channel directory, or when it fails or hangs, the change is refused as a failed check, and logged', async () => {
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line) });
      const failing: ChannelDirectory = { isMember: () => Promise.reject(new Error('conversations.members: ratelimited')) };
      const hanging: ChannelDirectory = { isMember: () => new Promise<boolean>(() => undefined) };
      for (const channels of [undefined, failing, hanging]) {
        const policy = createPolicy(restricted, fakeDirectory().directory, { channels, logger, lookupTimeoutMs: 20 });
        expect(await policy.can('UOPER', 'disk_add', 'CINC', inForm)).toMatchObject({ allowed: false, role: 'operator', denial: { code: 'check_failed' } });
      }
      expect(lines).toHaveLength(3);
      for (const line of lines) expect(line).toContain('could not check channel membership; refusing the change');
      for (const line of lines) expect(line).toContain('"channel":"CINC"');
      expect(lines[0]).toContain('no channel directory');
      expect(lines[1]).toContain('conversations.members: ratelimited');
      expect(lines[2]).toContain('looking up the members of CINC took more than 20 ms');
      // Without a logger, the same refusal.
      const unlogged = createPolicy(restricted, fakeDirectory().directory, { channels: failing });
      expect((await unlogged.can('UOPER', 'disk_add', 'CINC', inForm)).denial).toEqual({ code: 'check_failed' });
    });
  });

  describe('user groups', () => {
    test('membership of a group listed in a role grants that role', async () => {
      const dir = fakeDirectory({ SADMINS: ['UBOSS'], SONCALL: ['UGROUPIE', 'UBOSS'] });
      const policy = createPolicy(roles({ admins: ['SADMINS'], operators: ['UOPER', 'SONCALL'], viewers: ['SREADERS'] }), dir.directory);
      expect(await policy.roleOf('UBOSS')).toBe('admin');
      expect(await policy.roleOf('UGROUPIE')).toBe('operator');
      expect(await policy.roleOf('UOPER')).toBe('operator');
      expect(await policy.roleOf('USTRANGER')).toBe('none');
    });

    test('a group is looked up once for many checks, and concurrent checks share one call', async () => {
      const dir = fakeDirectory({ SONCALL: ['UGROUPIE'] });
      const policy = createPolicy(roles({ admins: [], operators: ['SONCALL'] }), dir.directory);
      const decisions = await Promise.all(Array.from({ length: 20 }, () => policy.can('UGROUPIE', 'disk_add', 'C1')));
      expect(decisions.every((d) => d.allowed)).toBe(true);
      await policy.roleOf('UGROUPIE');
      expect(dir.calls).toEqual(['SONCALL']);
    });

    test('a membership change is seen once the cache time has passed, not before', async () => {
      let clock = 1_000_000;
      const dir = fakeDirectory({ SONCALL: ['UGROUPIE'] });
      const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs: 30_000 }), dir.directory, { now: () => clock });
      expect(await policy.roleOf('UGROUPIE')).toBe('operator');
      dir.set('SONCALL', ['UNEWCOMER']);
      clock += 29_999;
      expect(await policy.roleOf('UGROUPIE')).toBe('operator');
      expect(await policy.roleOf('UNEWCOMER')).toBe('none');
      // Exactly VS_GROUP_CACHE_MS after the lookup, the answer is old.
      clock += 1;
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      expect(await policy.roleOf('UNEWCOMER')).toBe('operator');
    });

    test('a failed lookup is logged, denies (fails closed), and recovers soon after', async () => {
      let clock = 0;
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line) });
      const dir = fakeDirectory({ SONCALL: ['UGROUPIE'] });
      const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs: 60_000 }), dir.directory, { now: () => clock, logger, failureCacheMs: 5_000 });
      dir.fail(true);
      const denied = await policy.can('UGROUPIE', 'disk_add', 'C1');
      expect(denied).toMatchObject({ allowed: false, role: 'none' });
      expect(lines.some((l) => l.includes('"level":"warn"') && l.includes('SONCALL'))).toBe(true);
      dir.fail(false);
      clock += 5_001;
      expect(await policy.can('UGROUPIE', 'disk_add', 'C1')).toMatchObject({ allowed: true, role: 'operator' });
    });

    test('a lookup that never answers counts as failed after the lookup timeout', async () => {
      const hanging: GroupDirectory = { membersOf: () => new Promise<string[]>(() => undefined) };
      const policy = createPolicy(roles({ operators: ['SONCALL'] }), hanging, { lookupTimeoutMs: 20 });
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
    });

    test('a lookup that throws synchronously is a failure like any other, and is retried later', async () => {
      let clock = 0;
      let throwing = true;
      const directory: GroupDirectory = {
        membersOf: (groupId) => {
          if (throwing) throw new Error('boom');
          return Promise.resolve(groupId === 'SONCALL' ? ['UGROUPIE'] : []);
        },
      };
      const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs: 1000 }), directory, { now: () => clock });
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      throwing = false;
      clock += 1001;
      expect(await policy.roleOf('UGROUPIE')).toBe('operator');
    });

    test('a user in either of two groups listed for a role gets the role', async () => {
      const dir = fakeDirectory({ SFIRST: ['UFIRST'], SSECOND: ['USECOND'] });
      const policy = createPolicy(roles({ admins: [], operators: ['SFIRST', 'SSECOND'], viewers: [] }), dir.directory);
      expect(await policy.roleOf('UFIRST')).toBe('operator');
      expect(await policy.roleOf('USECOND')).toBe('operator');
      expect(await policy.roleOf('UNEITHER')).toBe('none');
    });

    test('user ids in a role list are never looked up as groups; group ids (S…) are', async () => {
      const dir = fakeDirectory({ SONCALL: [] });
      const policy = createPolicy(roles({ admins: ['UADMIN', 'WENTERPRISE'], operators: ['UOPER', 'SONCALL'], viewers: ['UVIEW'] }), dir.directory);
      expect(await policy.roleOf('USTRANGER')).toBe('none');
      expect(dir.calls).toEqual(['SONCALL']);
    });

    test('a failed lookup is not tried again within its failure cache time, and is the moment that time ends', async () => {
      let clock = 0;
      const dir = fakeDirectory({ SONCALL: ['UGROUPIE'] });
      const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs: 60_000 }), dir.directory, { now: () => clock, failureCacheMs: 5_000 });
      dir.fail(true);
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      dir.fail(false);
      clock += 4_999;
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      expect(dir.calls).toEqual(['SONCALL']);
      clock += 1;
      expect(await policy.roleOf('UGROUPIE')).toBe('operator');
      expect(dir.calls).toEqual(['SONCALL', 'SONCALL']);
    });

    test('the failure cache time is 5 s unless given, and never longer than the group cache time', async () => {
      const retriedAfter = async (groupCacheMs: number, failureCacheMs: number | undefined) => {
        let clock = 0;
        const dir = fakeDirectory({ SONCALL: ['UGROUPIE'] });
        const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs }), dir.directory, { now: () => clock, failureCacheMs });
        dir.fail(true);
        await policy.roleOf('UGROUPIE');
        dir.fail(false);
        while ((await policy.roleOf('UGROUPIE')) === 'none' && clock < 120_000) clock += 1_000;
        return clock;
      };
      expect(await retriedAfter(60_000, undefined)).toBe(5_000);
      expect(await retriedAfter(60_000, 2_000)).toBe(2_000);
      expect(await retriedAfter(3_000, 10_000)).toBe(3_000);
    });

    test('a failed lookup is logged with the group and why, and a hung one says how long it was given', async () => {
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line) });
      const hanging: GroupDirectory = { membersOf: () => new Promise<string[]>(() => undefined) };
      const policy = createPolicy(roles({ operators: ['SONCALL'] }), hanging, { logger, lookupTimeoutMs: 20 });
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('could not resolve a user group; its members get no role from it until it resolves');
      expect(lines[0]).toContain('"group":"SONCALL"');
      expect(lines[0]).toContain('looking up SONCALL took more than 20 ms');
    });

    test('a lookup that answers leaves no timer running', async () => {
      jest.useFakeTimers();
      try {
        const directory: GroupDirectory = { membersOf: () => Promise.resolve(['UGROUPIE']) };
        const policy = createPolicy(roles({ operators: ['SONCALL'] }), directory);
        expect(await policy.roleOf('UGROUPIE')).toBe('operator');
        expect(jest.getTimerCount()).toBe(0);
      } finally {
        jest.useRealTimers();
      }
    });

    test('an answer that is not a list is an empty group (no role), not a failed lookup to log', async () => {
      let clock = 0;
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line) });
      let answer: unknown = { members: ['UGROUPIE'] };
      const calls: string[] = [];
      const directory: GroupDirectory = {
        membersOf: (groupId) => {
          calls.push(groupId);
          return Promise.resolve(answer as string[]);
        },
      };
      const policy = createPolicy(roles({ operators: ['SONCALL'], groupCacheMs: 60_000 }), directory, { now: () => clock, logger, failureCacheMs: 5_000 });
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      answer = ['UGROUPIE'];
      clock += 5_000;
      expect(await policy.roleOf('UGROUPIE')).toBe('none');
      expect(calls).toEqual(['SONCALL']);
      expect(lines).toEqual([]);
    });

    test('direct listing needs no lookup at all', async () => {
      const dir = fakeDirectory();
      const policy = createPolicy(roles({ admins: ['UADMIN', 'SADMINS'] }), dir.directory);
      expect(await policy.roleOf('UADMIN')).toBe('admin');
      expect(dir.calls).toEqual([]);
    });
  });
});
