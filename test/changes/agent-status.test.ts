import type { Config } from '../../src/config';
import { openDoor } from '../helpers/door';

// An agent's request as change_status reads it through the door (src/changes/changes.ts, agentStatus), without
// Slack: past its expiry it is `expired` at once, before the sweep has recorded it (no click can decide it any more),
// and only its owner (or an admin) may read it.

const ROLES: Config['roles'] = {
  admins: ['UADMIN'],
  operators: ['UOPER', 'UOPER2'],
  viewers: [],
  mutationChannels: null,
  groupCacheMs: 60_000,
  workflowReads: 'viewers',
};
const TTL_MS = 30 * 60_000;

const ask = (t: ReturnType<typeof openDoor>) =>
  t.changes.askForAgent({ owner: 'UOPER', agent: 'laptop', channelId: 'CAGENTS', submissionKey: 'agent:1', denyMemoryMs: 30 * 60_000 }, 'power_reboot', 42, {
    power_action: 'reboot',
    confirm: '42',
    reason: 'it hangs',
  });

test('a request past its expiry is expired for change_status before any sweep; nothing is sent; others cannot read it', async () => {
  const t = openDoor({ roles: ROLES, approvals: { actions: [], ttlMs: TTL_MS } });
  try {
    t.onServer({ booted: true });
    const asked = await ask(t);
    if (asked.outcome !== 'requested') throw new Error(`not requested: ${asked.outcome}`);
    const id = asked.approval.id;
    expect(await t.changes.agentStatus(id, 'UOPER', false)).toMatchObject({ found: true, outcome: 'requested' });

    t.advance(TTL_MS - 1);
    expect(await t.changes.agentStatus(id, 'UOPER', false)).toMatchObject({ outcome: 'requested' });
    t.advance(1);
    // Not swept: the store still holds it as requested, and change_status says expired, with no record's detail.
    expect((await t.store.approvals.get(id))?.status).toBe('requested');
    expect(await t.changes.agentStatus(id, 'UOPER', false)).toMatchObject({ found: true, outcome: 'expired', record: null });
    expect(await t.changes.agentStatus(id, 'UOPER2', false)).toEqual({ found: false });
    expect(await t.changes.agentStatus(id, 'UADMIN', true)).toMatchObject({ outcome: 'expired' });
    expect(t.calls).toEqual([]);
  } finally {
    await t.store.close();
  }
});
