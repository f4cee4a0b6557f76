import { WebClient } from '@slack/web-api';
import { slackChannelDirectory, slackGroupDirectory } from '../../src/slack/directories';
import { startSlackFake, type SlackFake } from '../helpers/slack-fake';

// What the policy asks of Slack, against the stand-in: membership is asked
// from the user's side, so its cost follows the user's channels, never the
// channel's size.

let slack: SlackFake;
let client: WebClient;

beforeAll(async () => {
  slack = await startSlackFake();
  client = new WebClient('xoxb-directories', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(() => slack.close());
beforeEach(() => slack.reset());

test('a member of a 50,000-member channel is found in one users.conversations call, asking for every channel type the bot may see', async () => {
  slack.setChannelMembers('C0HUGE', [...Array.from({ length: 49_999 }, (_, i) => `UOTHER${i}`), 'U0ME']);
  slack.setChannelMembers('C0SMALL', ['UOTHER1']);
  const channels = slackChannelDirectory(client);
  expect(await channels.isMember('U0ME', 'C0HUGE')).toBe(true);
  expect(await channels.isMember('U0ME', 'C0SMALL')).toBe(false);
  expect(slack.callsTo('users.conversations').map((c) => c.args)).toEqual([
    expect.objectContaining({ user: 'U0ME', types: 'public_channel,private_channel', exclude_archived: 'true', limit: '999' }),
    expect.objectContaining({ user: 'U0ME' }),
  ]);
  expect(slack.callsTo('conversations.members')).toHaveLength(0);
});

test('someone in more channels than one page holds is paged through, and the paging stops at the channel', async () => {
  for (let i = 0; i < 2500; i++) slack.setChannelMembers(`C0MANY${i}`, ['U0BUSY']);
  const channels = slackChannelDirectory(client);
  expect(await channels.isMember('U0BUSY', 'C0MANY10')).toBe(true);
  expect(slack.callsTo('users.conversations')).toHaveLength(1);
  expect(await channels.isMember('U0BUSY', 'C0MANY2400')).toBe(true);
  expect(await channels.isMember('U0BUSY', 'C0NOWHERE')).toBe(false);
  // 1 + 3 + 3 pages of 999.
  expect(slack.callsTo('users.conversations')).toHaveLength(7);
});

test('a user group lists its members; a failed lookup rejects (the policy fails closed)', async () => {
  slack.setGroup('S0GROUP', ['U1', 'U2']);
  const groups = slackGroupDirectory(client);
  expect(await groups.membersOf('S0GROUP')).toEqual(['U1', 'U2']);
  await expect(groups.membersOf('S0MISSING')).rejects.toThrow(/no_such_subteam/);
});
