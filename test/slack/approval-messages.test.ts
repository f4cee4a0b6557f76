import type { WebClient } from '@slack/web-api';
import { createLogger } from '../../src/log';
import type { Approval, ExpiredApproval } from '../../src/store';
import { approvalFacts, expireApprovals, postApprovalRequest, showClaimedRequest, endApprovalMessage } from '../../src/slack/approval-messages';
import { renderApprovalRequest } from '../../src/slack/blocks/approvals';
import { renderWorkflowRequest } from '../../src/slack/blocks/workflow-requests';
import type { Config } from '../../src/config';

// The approval request's message in its channel (src/slack/approval-messages.ts):
// posted once and remembered, updated in place by whichever instance settles
// it, and every refusal of Slack logged rather than thrown. Slack's Web API is
// the network edge here: a client that records its calls and answers as told.

/** Who may decide: a restore needs an admin (the group SADMINS, UADMIN, UADMIN2), an add-disk an operator too. */
const ROLES: Config['roles'] = {
  admins: ['UADMIN', 'UADMIN2', 'SADMINS'],
  operators: ['UOPER'],
  viewers: null,
  mutationChannels: null,
  groupCacheMs: 1000,
  workflowReads: 'viewers',
};

function approval(o: Partial<Approval> = {}): Approval {
  return {
    id: 'A-1',
    action: 'backup_restore',
    target: 'backup:9',
    params: { backup_id: 9 },
    channelId: 'CINCIDENT',
    requestedBy: 'UADMIN',
    requestedAt: '2024-05-06T14:03:12.000Z',
    expiresAtMs: Date.parse('2024-05-06T14:33:12.000Z'),
    reason: null,
    apiRequest: { method: 'POST', path: '/backups/9/restore.json', body: null },
    status: 'requested',
    decidedBy: null,
    decidedAt: null,
    decisionReason: null,
    messageTs: null,
    cloud: null,
    ...o,
  };
}

function fakeSlack(answers: { postMessage?: () => Promise<unknown>; update?: () => Promise<unknown> } = {}) {
  const calls: { method: string; args: Record<string, unknown> }[] = [];
  const client = {
    chat: {
      postMessage: (args: Record<string, unknown>) => {
        calls.push({ method: 'chat.postMessage', args });
        return answers.postMessage ? answers.postMessage() : Promise.resolve({ ok: true, ts: '1714557600.000100' });
      },
      update: (args: Record<string, unknown>) => {
        calls.push({ method: 'chat.update', args });
        return answers.update ? answers.update() : Promise.resolve({ ok: true });
      },
    },
  } as unknown as WebClient;
  return { client, calls };
}

function logs() {
  const lines: string[] = [];
  return { log: createLogger({ level: 'debug', write: (l) => lines.push(l) }), lines };
}

const slackRefuses = (error: string) => () =>
  Promise.reject(Object.assign(new Error(`An API error occurred: ${error}`), { code: 'slack_webapi_platform_error', data: { error } }));

test("a request's facts: its change's title, target and role; none for an action or a target this version cannot read", () => {
  expect(approvalFacts(approval(), true)).toEqual({
    approval: approval(),
    title: 'Restore backup',
    target: { kind: 'backup', id: 9, label: null },
    needed: 'admin',
    sandbox: true,
  });
  expect(approvalFacts(approval({ action: 'disk_add', target: 'vs:42' }), false)).toMatchObject({
    title: 'Add disk',
    target: { kind: 'vs', id: 42 },
    needed: 'operator',
  });
  expect(approvalFacts(approval({ action: 'freeze' }), false)).toBeNull();
  expect(approvalFacts(approval({ target: 'vs:9' }), false)).toBeNull();
});

describe('posting a request', () => {
  test('in its channel, for everyone there, and remembered where', async () => {
    const { client, calls } = fakeSlack();
    const remembered: [string, string][] = [];
    const ts = await postApprovalRequest({ setMessage: async (id, at) => void remembered.push([id, at]) }, client, approval(), {
      sandbox: false,
      roles: ROLES,
      log: logs().log,
    });
    expect(ts).toBe('1714557600.000100');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'chat.postMessage', args: { channel: 'CINCIDENT', text: expect.stringContaining('Approval needed') } });
    expect(JSON.stringify(calls[0]!.args.blocks)).toContain('approval_approve');
    expect(remembered).toEqual([['A-1', '1714557600.000100']]);
  });

  test('mentioning who may decide it: the user groups holding the role and the people by their own id, never the one who asked', async () => {
    const { client, calls } = fakeSlack();
    await postApprovalRequest({ setMessage: () => Promise.resolve() }, client, approval({ requestedBy: 'UADMIN' }), {
      sandbox: false,
      roles: ROLES,
      log: logs().log,
    });
    expect(JSON.stringify(calls[0]!.args.blocks)).toContain('*Who may decide:* <!subteam^SADMINS> <@UADMIN2>');
    expect(calls[0]!.args.text).toMatch(/ · for <!subteam\^SADMINS> <@UADMIN2>$/);
    // An add-disk may be decided by operators too.
    await postApprovalRequest({ setMessage: () => Promise.resolve() }, client, approval({ action: 'disk_add', target: 'vs:42' }), {
      sandbox: false,
      roles: ROLES,
      log: logs().log,
    });
    expect(JSON.stringify(calls[1]!.args.blocks)).toContain('*Who may decide:* <!subteam^SADMINS> <@UADMIN2> <@UOPER>');
  });

  test('a workflow’s request nobody has claimed yet is posted with its claim button, not Approve and Deny', async () => {
    const { client, calls } = fakeSlack();
    const unclaimed = approval({ status: 'awaiting_requester', requestedBy: '', workflowExecutionId: 'Wx1' });
    expect(await postApprovalRequest({ setMessage: () => Promise.resolve() }, client, unclaimed, { sandbox: false, roles: ROLES, log: logs().log })).toBe(
      '1714557600.000100',
    );
    const shown = renderWorkflowRequest(approvalFacts(unclaimed, false, ROLES)!);
    expect(calls.map((c) => c.args)).toEqual([{ channel: 'CINCIDENT', text: shown.text, blocks: shown.blocks }]);
    expect(JSON.stringify(calls[0]!.args.blocks)).not.toContain('approval_approve');
  });

  test('Slack refusing is logged, and says so to the caller; so does an answer without a ts', async () => {
    const { log, lines } = logs();
    const refusing = fakeSlack({ postMessage: slackRefuses('not_in_channel') });
    expect(
      await postApprovalRequest({ setMessage: () => Promise.resolve() }, refusing.client, approval(), { sandbox: false, roles: ROLES, log: log }),
    ).toBeNull();
    expect(lines.find((l) => l.includes('could not post the approval request in its channel'))).toContain('not_in_channel');
    const tsless = fakeSlack({ postMessage: () => Promise.resolve({ ok: true }) });
    expect(
      await postApprovalRequest({ setMessage: () => Promise.reject(new Error('unexpected')) }, tsless.client, approval(), {
        sandbox: false,
        roles: ROLES,
        log: log,
      }),
    ).toBeNull();
  });

  test('where it was posted not remembered: still posted (a click carries its ts), and logged', async () => {
    const { log, lines } = logs();
    const { client } = fakeSlack();
    expect(
      await postApprovalRequest({ setMessage: () => Promise.reject(new Error('database is down')) }, client, approval(), {
        sandbox: false,
        roles: ROLES,
        log: log,
      }),
    ).toBe('1714557600.000100');
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'could not remember where the approval request was posted',
        approval: 'A-1',
        error: expect.objectContaining({ message: 'database is down' }),
      }),
    );
  });

  test('a request of an action this version cannot read is not posted', async () => {
    const { client, calls } = fakeSlack();
    expect(
      await postApprovalRequest({ setMessage: () => Promise.resolve() }, client, approval({ action: 'unfreeze' }), {
        sandbox: false,
        roles: ROLES,
        log: logs().log,
      }),
    ).toBeNull();
    expect(calls).toEqual([]);
  });
});

describe('updating a request in place', () => {
  test('by its remembered ts, else the ts of the message clicked', async () => {
    const { client, calls } = fakeSlack();
    const remembered = await endApprovalMessage(
      client,
      approval({ messageTs: '1.1', status: 'rejected', decidedBy: 'UADMIN2' }),
      { kind: 'rejected' },
      { sandbox: false, log: logs().log, ts: '9.9' },
    );
    expect(remembered.updated).toBe(true);
    expect(remembered.message!.text).toMatch(/Denied by <@UADMIN2>/);
    const clicked = await endApprovalMessage(client, approval(), { kind: 'expired' }, { sandbox: false, log: logs().log, ts: '9.9' });
    expect(clicked.updated).toBe(true);
    // Each updated in place, and the one who asked told in its thread, with a mention.
    expect(calls.map((c) => [c.method, c.args.channel, c.args.ts ?? `thread ${c.args.thread_ts as string}`])).toEqual([
      ['chat.update', 'CINCIDENT', '1.1'],
      ['chat.postMessage', 'CINCIDENT', 'thread 1.1'],
      ['chat.update', 'CINCIDENT', '9.9'],
      ['chat.postMessage', 'CINCIDENT', 'thread 9.9'],
    ]);
    expect(calls[0]!.args.blocks).toEqual(remembered.message!.blocks);
    expect(JSON.stringify(calls[1]!.args.blocks)).toContain('<@UADMIN> :no_entry_sign: *Denied* by <@UADMIN2>. Nothing was changed.');
    expect(calls[1]!.args.text).toMatch(/^<@UADMIN> your request to Restore backup · Backup 9: Denied by <@UADMIN2>/);
  });

  test("the requester's thread reply: Slack refusing it is logged; a workflow's request nobody claimed has nobody to tell", async () => {
    const { log, lines } = logs();
    const refusing = fakeSlack({ postMessage: slackRefuses('channel_not_found') });
    expect((await endApprovalMessage(refusing.client, approval({ messageTs: '1.1' }), { kind: 'expired' }, { sandbox: false, log })).updated).toBe(true);
    expect(lines.find((l) => l.includes('could not tell the requester how the request ended in its thread'))).toContain('channel_not_found');
    const { client, calls } = fakeSlack();
    await endApprovalMessage(client, approval({ messageTs: '1.1', requestedBy: '' }), { kind: 'expired' }, { sandbox: false, log });
    expect(calls.map((c) => c.method)).toEqual(['chat.update']);
  });

  test('with no message to update, or Slack refusing, says so (logged) and hands back what it would have shown', async () => {
    const { log, lines } = logs();
    const none = await endApprovalMessage(fakeSlack().client, approval(), { kind: 'expired' }, { sandbox: false, log });
    expect(none.updated).toBe(false);
    expect(none.message!.text).toMatch(/Expired/);
    const refused = await endApprovalMessage(
      fakeSlack({ update: slackRefuses('message_not_found') }).client,
      approval({ messageTs: '1.1' }),
      { kind: 'expired' },
      { sandbox: false, log },
    );
    expect(refused).toMatchObject({ updated: false, message: { text: expect.stringMatching(/Expired/) } });
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'the approval request has no message to update', approval: 'A-1' }),
    );
    expect(lines.find((l) => l.includes('could not update the approval request in place'))).toContain('message_not_found');
    expect(await endApprovalMessage(fakeSlack().client, approval({ action: 'freeze' }), { kind: 'expired' }, { sandbox: false, log })).toEqual({
      updated: false,
      message: null,
    });
  });
});

describe('a workflow’s request once claimed', () => {
  const claimed = (o: Partial<Approval> = {}) => approval({ requestedBy: 'UOPER', workflowExecutionId: 'Wx1', ...o });

  test('becomes the approval request in place, by its remembered ts, else the ts of the message clicked; nobody is called again', async () => {
    const { client, calls } = fakeSlack();
    expect(await showClaimedRequest(client, claimed({ messageTs: '1.1' }), { sandbox: false, roles: ROLES, log: logs().log, ts: '9.9' })).toBe(true);
    expect(await showClaimedRequest(client, claimed(), { sandbox: false, roles: ROLES, log: logs().log, ts: '9.9' })).toBe(true);
    const shown = renderApprovalRequest(approvalFacts(claimed(), false, ROLES)!);
    // Nothing in its thread: those who may decide it were called when it was posted, once a request.
    expect(calls).toEqual([
      { method: 'chat.update', args: { channel: 'CINCIDENT', ts: '1.1', text: shown.text, blocks: shown.blocks } },
      { method: 'chat.update', args: { channel: 'CINCIDENT', ts: '9.9', text: shown.text, blocks: shown.blocks } },
    ]);
  });

  test('with no message to update, or of an action this version cannot read, nothing is called; Slack refusing is logged', async () => {
    const { log, lines } = logs();
    const { client, calls } = fakeSlack();
    expect(await showClaimedRequest(client, claimed(), { sandbox: false, roles: ROLES, log })).toBe(false);
    expect(await showClaimedRequest(client, claimed({ action: 'freeze', messageTs: '1.1' }), { sandbox: false, roles: ROLES, log })).toBe(false);
    expect(calls).toEqual([]);
    const refusing = fakeSlack({ update: slackRefuses('message_not_found') });
    expect(await showClaimedRequest(refusing.client, claimed({ messageTs: '1.1' }), { sandbox: false, roles: ROLES, log })).toBe(false);
    expect(lines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'could not show the claimed request in place',
        approval: 'A-1',
        error: expect.objectContaining({ error: 'message_not_found' }) as unknown,
      }),
    ]);
  });
});

test('the expiry step: each request the door expired says so in its message; the count is returned', async () => {
  const { client, calls } = fakeSlack();
  const expired: ExpiredApproval[] = [
    approval({ id: 'A-1', messageTs: '1.1', status: 'expired' }),
    approval({ id: 'A-2', messageTs: '2.2', status: 'expired' }),
  ];
  let sandbox = false;
  const step = expireApprovals({ changes: { expire: () => Promise.resolve(expired) }, client, sandbox: () => sandbox, logger: logs().log });
  sandbox = true;
  expect(await step()).toBe(2);
  expect(calls.map((c) => c.args.ts ?? `thread ${c.args.thread_ts as string}`)).toEqual(['1.1', 'thread 1.1', '2.2', 'thread 2.2']);
  expect(JSON.stringify(calls[0]!.args.blocks)).toMatch(/Expired.*sandbox data/);
  expect(await expireApprovals({ changes: { expire: () => Promise.resolve([]) }, client, sandbox: () => false, logger: logs().log })()).toBe(0);
});
