import { servedWorkspaces, teamsOf } from '../../src/slack/workspaces';

// Which workspaces a delivery names, and the verdict on them (the requests
// themselves: test/security/workspaces.test.ts).

describe('teamsOf: every workspace a delivery names', () => {
  test.each([
    ['a slash command', { team_id: 'T1', user_id: 'U1' }, ['T1']],
    ['a click by a Slack Connect user', { team: { id: 'T1' }, user: { id: 'U9', team_id: 'T9' } }, ['T1', 'T9']],
    ['a click of an org-wide install (no team)', { team: null, user: { id: 'W1', team_id: 'T2' }, enterprise: { id: 'E1' } }, ['T2']],
    ['a form opened in another workspace', { team: { id: 'T1' }, user: { id: 'U1', team_id: 'T1' }, view: { team_id: 'T3' } }, ['T1', 'T3']],
    ['an event in a channel of another workspace', { team_id: 'T1', context_team_id: 'T4', event: { type: 'link_shared' } }, ['T1', 'T4']],
    ['a message event of a Slack Connect user', { team_id: 'T1', event: { type: 'message', user_team: 'T5', source_team: 'T5' } }, ['T1', 'T5']],
    ['a body that names none', { type: 'event_callback' }, []],
    ['what is not an object', 'team_id=T1', []],
  ])('%s', (_name, body, teams) => {
    expect(teamsOf(body)).toEqual(teams);
  });
});

describe('servedWorkspaces', () => {
  const token = (team: string | undefined, learnt?: string) => {
    let known = team;
    return {
      teamId: () => known,
      learn: () => {
        known = learnt ?? known;
        return Promise.resolve();
      },
    };
  };

  test('every workspace named must be served: the configured one, or one allowed', () => {
    const w = servedWorkspaces({ teamId: 'T1', allowedTeams: ['T2'] }, token('T9'));
    expect([w.decide(['T1']), w.decide(['T1', 'T2']), w.decide(['T1', 'T3']), w.decide(['T9']), w.decide([])]).toEqual([
      'served',
      'served',
      'refused',
      'refused',
      'refused',
    ]);
  });

  test('unset, the token’s workspace is served once auth.test has named it; until then nothing is (an allowed one is)', async () => {
    const w = servedWorkspaces({ teamId: null, allowedTeams: ['T2'] }, token(undefined, 'T1'));
    expect([w.decide(['T1']), w.decide(['T2'])]).toEqual([null, 'served']);
    expect(await w.decideWhenKnown(['T1'])).toBe('served');
    expect(w.decide(['T3'])).toBe('refused');
  });

  test('when auth.test does not name it (Slack down, an org-wide token), the verdict is unknown, which refuses', async () => {
    const w = servedWorkspaces({ teamId: null, allowedTeams: [] }, token(undefined));
    expect(await w.decideWhenKnown(['T1'])).toBe('unknown');
  });
});
