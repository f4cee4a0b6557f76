import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { useHarness } from '../../../helpers/app-harness';
import { CHANNEL, runStep } from '../../../helpers/drive';
import { clickOn, recordsOf, updatedTo } from '../../../helpers/requests';

// Workflow change steps cannot flood a channel or its people (docs/product.md, Workflow steps): a workflow run again
// and again for the same change is the one request it already is, nobody is called twice for one request, one
// workflow posts at most VS_WORKFLOW_REQUESTS_PER_HOUR requests an hour, and one person or user group is called by
// workflow requests at most VS_WORKFLOW_CALLS_PER_HOUR times an hour. Over the real Bolt app, on a fake clock.

const ENV = {
  VS_ADMINS: 'UADMIN,UADMIN2',
  VS_OPERATORS: 'UOPER,SONCALL',
  VS_APPROVAL_TTL_MIN: '30',
  VS_WORKFLOW_REQUESTS_PER_HOUR: '4',
  VS_WORKFLOW_CALLS_PER_HOUR: '2',
};
const OTHER_CHANNEL = 'CWAR';

/** Added to the real clock: the bot's fake clock, moved an hour before each test so that every hourly limit is full again. */
let skew = 0;
const h = useHarness({
  env: { ...ENV, ...{ VS_READS_PER_USER_PER_MINUTE: '1000', VS_CHANGES_PER_USER_PER_MINUTE: '1000' } },
  now: () => Date.now() + skew,
  beforeEach: (h) => {
    // Past every request's expiry and every limit's hour.
    skew += 2 * 3_600_000;
    before = new Set([CHANNEL, OTHER_CHANNEL].flatMap((c) => h.slack.messagesIn(c).map((m) => m.ts)));
  },
});

let labels = 0;
const diskStep = (label: string, channel = CHANNEL) =>
  runStep(h, 'vs_request_disk', { vs_id: 42, disk_type: 'SSD', disk_size: 20, label, channel, reason: 'the data disk is full' });

/** Messages there before the test: the stand-in keeps a channel's messages across tests. */
let before = new Set<string>();
const newIn = (channel: string) => h.slack.messagesIn(channel).filter((m: ChannelMessage) => m.kind === 'bot' && !before.has(m.ts));
/** The bot's new messages in `channel` that call someone: a mention of a person or a user group. */
const callsIn = (channel: string) => newIn(channel).filter((m) => /<@U|<!subteam\^/.test(JSON.stringify(m.blocks ?? [])));
const requestsIn = (channel: string) => newIn(channel).filter((m) => JSON.stringify(m.blocks ?? []).includes('"change_request_claim"'));

describe('a workflow run again and again for the same change', () => {
  test('is one request: one message, its deciders called once; each run completes with its id and is recorded against it', async () => {
    const label = `scratch-${++labels}`;
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push((await diskStep(label)).execution);
    expect(runs.map((e) => e.state)).toEqual(['completed', 'completed', 'completed']);
    const ids = new Set(runs.map((e) => e.outputs!.request_id));
    expect(ids.size).toBe(1);
    expect(runs.map((e) => e.outputs!.status)).toEqual(['awaiting_requester', 'awaiting_requester', 'awaiting_requester']);
    expect(requestsIn(CHANNEL)).toHaveLength(1);
    expect(callsIn(CHANNEL)).toHaveLength(1);
    const [id] = [...ids] as string[];
    const records = await recordsOf(h, id!);
    expect(records.map((r) => [r.outcome, r.workflowExecutionId])).toEqual(runs.map((e) => ['requested', e.workflowExecutionId]));
    expect(records[1]!.detail).toMatch(
      /^a workflow asked again \(Wx[0-9A-F]+\) for the change request .+ already asks for, still unclaimed; nothing new was posted$/,
    );

    // Claimed, it becomes the approval request in place; those who may decide it were called already, and are not called again.
    const message = requestsIn(CHANNEL)[0]!;
    const posted = { id: id!, channel: CHANNEL, ts: message.ts };
    await clickOn(h, 'UOPER', 'change_request_claim', posted);
    await updatedTo(h, posted, /Approval needed/);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === message.ts)).toEqual([]);

    // Claimed, it is in someone's hands: the workflow asking again is a new request.
    const again = (await diskStep(label)).execution;
    expect(again.outputs!.request_id).not.toBe(id);
    expect(requestsIn(CHANNEL)).toHaveLength(1);
  });
});

describe('one workflow asking for many changes', () => {
  test('posts at most VS_WORKFLOW_REQUESTS_PER_HOUR requests an hour in a channel; the next ends with an error, nothing posted or recorded', async () => {
    for (let i = 0; i < 4; i++) expect((await diskStep(`many-${++labels}`)).execution.state).toBe('completed');
    expect(requestsIn(CHANNEL)).toHaveLength(4);
    const { execution } = await diskStep(`many-${++labels}`);
    expect(execution.state).toBe('failed');
    expect(execution.error).toBe(
      `This workflow has asked for 4 changes in channel ${CHANNEL} in the last hour, the most one workflow may (VS_WORKFLOW_REQUESTS_PER_HOUR), ` +
        'so this one was not asked for and nobody was called; nothing was changed. It may ask again in 15 minutes.',
    );
    expect(requestsIn(CHANNEL)).toHaveLength(4);
    expect((await h.store.audit.latest(20)).filter((r) => r.workflowExecutionId === execution.workflowExecutionId)).toEqual([]);
    // Another channel is another workflow as far as the bot can tell; and a quarter of an hour later, one more may ask.
    expect((await diskStep(`many-${++labels}`, OTHER_CHANNEL)).execution.state).toBe('completed');
    skew += 15 * 60_000;
    expect((await diskStep(`many-${++labels}`)).execution.state).toBe('completed');
  });
});

describe('those who may decide', () => {
  test('are called by workflow requests at most VS_WORKFLOW_CALLS_PER_HOUR times an hour; later requests name the role instead', async () => {
    for (const channel of [CHANNEL, OTHER_CHANNEL]) await diskStep(`called-${++labels}`, channel);
    expect(callsIn(CHANNEL)).toHaveLength(1);
    expect(callsIn(OTHER_CHANNEL)).toHaveLength(1);
    await diskStep(`called-${++labels}`);
    const third = requestsIn(CHANNEL).at(-1)!;
    expect(JSON.stringify(third.blocks)).not.toMatch(/<@U|<!subteam\^/);
    expect(JSON.stringify(third.blocks)).toContain(
      '*Who may request it:* anyone with the operator role (not called on this one: workflow requests called them as often this hour as they may be)',
    );
    // An hour on, they are called again.
    skew += 3_600_000;
    await diskStep(`called-${++labels}`);
    expect(JSON.stringify(requestsIn(CHANNEL).at(-1)!.blocks)).toContain('*Who may request it:* <!subteam^SONCALL> <@UADMIN> <@UADMIN2> <@UOPER>');
  });
});
