import { TEAM } from '@vs-chatops/slack-standin';
import { useHarness, type Harness } from '../helpers/app-harness';
import { CHANNEL, runStep, visibleText, type Message } from '../helpers/drive';
import { buttonClick, FORM, globalShortcut, linkShared, slashCommandFields } from '../helpers/payloads';
import { waitFor } from '../helpers/wait';

// Requests are served for one workspace: SLACK_TEAM_ID, or the team the bot
// token belongs to (auth.test: the stand-in's), and those VS_ALLOWED_TEAMS
// lists. A request from another, or from a Slack Connect user of another
// organisation in a shared channel (their own team differs from the
// channel's), is refused before anything runs: told where Slack lets the bot
// answer, nothing for an event. Sent signed, through the real app, as Slack
// would send them.

const ENV = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER,UPARTNER' };
const REFUSED = /This bot serves its own workspace only: requests from other workspaces, Slack Connect users included, are refused\. Nothing was done\./;

const cloudCalls = (h: Harness) => h.sandbox.requests.length;

/** `/vs <text>` sent from workspace `team`; resolves with what was posted to its response_url. */
async function commandFrom(h: Harness, team: string, text: string, user = 'UADMIN'): Promise<Message> {
  const responseUrl = h.slack.responseUrl();
  const body = new URLSearchParams({ ...slashCommandFields({ text, user, channel: CHANNEL, responseUrl }), team_id: team }).toString();
  expect((await h.raw(body, FORM)).status).toBe(200);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  return waitFor(`the answer to ${text}`, () => h.slack.responses.find((r) => r.id === id)?.body as Message | undefined, { within: 5000 });
}

/** A card's Firewall button clicked in a channel of the bot's workspace by a person of workspace `userTeam`. */
async function clickBy(h: Harness, userTeam: string, user: string): Promise<Message> {
  const responseUrl = h.slack.responseUrl();
  const click = buttonClick({ user, channel: CHANNEL, actionId: 'server_firewall', value: 'firewall 42', responseUrl });
  Object.assign(click.user as object, { team_id: userTeam });
  expect((await h.interact(click)).status).toBe(200);
  const id = responseUrl.slice(responseUrl.lastIndexOf('/') + 1);
  return waitFor('the answer to the click', () => h.slack.responses.find((r) => r.id === id)?.body as Message | undefined, { within: 5000 });
}

describe('the bot token’s workspace (SLACK_TEAM_ID unset)', () => {
  const h = useHarness({ env: ENV });

  test('its own requests are served (local mode’s stand-in names its workspace so too)', async () => {
    expect((await commandFrom(h, TEAM.id, 'firewall 42')).response_type).toBe('in_channel');
  });

  test('a command from another workspace is refused, told only to its sender, and runs nothing', async () => {
    const answer = await commandFrom(h, 'T0OTHER', 'freeze from elsewhere');
    expect(answer.response_type).toBe('ephemeral');
    expect(visibleText(answer)).toMatch(REFUSED);
    expect(await h.store.freeze.current()).toBeNull();
    expect(await h.store.audit.latest(5)).toEqual([]);
    expect(cloudCalls(h)).toBe(0);
    expect(h.logs.some((l) => l.includes('refused a request from a workspace the bot does not serve') && l.includes('T0OTHER'))).toBe(true);
  });

  test('a Slack Connect user (their team differs from the channel’s) clicking a button is refused, as an operator of ours would not be', async () => {
    const answer = await clickBy(h, 'T0CONNECT', 'UEXTERNAL');
    expect(answer.response_type).toBe('ephemeral');
    expect(visibleText(answer)).toMatch(REFUSED);
    expect(cloudCalls(h)).toBe(0);
    // The same click by a person of the bot's workspace runs.
    expect((await clickBy(h, TEAM.id, 'UOPER')).text).toContain('Firewall rules of VS 42');
  });

  test('a shortcut from another workspace opens no form: a modal says why', async () => {
    const shortcut = globalShortcut({ user: 'UOPER', callbackId: 'disk_add_shortcut' });
    Object.assign(shortcut, { team: { id: 'T0OTHER', domain: 'other' } });
    Object.assign(shortcut.user as object, { team_id: 'T0OTHER' });
    expect((await h.interact(shortcut)).status).toBe(200);
    const opened = await waitFor('the modal', () => h.slack.callsTo('views.open')[0]);
    expect(JSON.stringify(opened.args.view)).toMatch(REFUSED);
    expect((opened.args.view as { callback_id?: string }).callback_id ?? '').not.toBe('disk_add');
  });

  test('an event from another workspace gets nothing: a link is not unfurled, the cloud is not read', async () => {
    const url = `${new URL(h.sandbox.url).origin}/virtual_machines/42`;
    const event = linkShared({ user: 'UOPER', urls: [url], orgWide: { enterpriseId: 'E0ORG', teamId: 'T0OTHER', channelTeamId: 'T0OTHER' } });
    expect((await h.event(event)).status).toBe(200);
    await waitFor('the refusal to be logged', () => (h.logs.some((l) => l.includes('does not serve') && l.includes('link_shared')) ? true : undefined));
    expect(h.slack.callsTo('chat.unfurl')).toEqual([]);
    expect(cloudCalls(h)).toBe(0);
  });

  test('a workflow step from another workspace ends with the refusal, reading nothing', async () => {
    const { execution } = await runStep(h, 'vs_firewall_summary', { vs_id: 42 }, { source: { teamId: 'T0OTHER' } });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(REFUSED);
    expect(cloudCalls(h)).toBe(0);
  });
});

describe('VS_ALLOWED_TEAMS', () => {
  const h = useHarness({ env: { ...ENV, VS_ALLOWED_TEAMS: 'T0PARTNER' } });

  test('a workspace it lists is served, its Slack Connect users too; one it does not list is still refused', async () => {
    expect((await commandFrom(h, 'T0PARTNER', 'firewall 42', 'UPARTNER')).response_type).toBe('in_channel');
    expect((await clickBy(h, 'T0PARTNER', 'UPARTNER')).text).toContain('Firewall rules of VS 42');
    expect(visibleText(await commandFrom(h, 'T0OTHER', 'firewall 42'))).toMatch(REFUSED);
    expect(visibleText(await clickBy(h, 'T0OTHER', 'UOTHER'))).toMatch(REFUSED);
  });
});

describe('SLACK_TEAM_ID', () => {
  const h = useHarness({ env: { ...ENV, SLACK_TEAM_ID: 'T0PINNED' } });

  test('names the workspace served, whatever the bot token’s: the token’s own is then another workspace', async () => {
    expect((await commandFrom(h, 'T0PINNED', 'firewall 42')).response_type).toBe('in_channel');
    expect(visibleText(await commandFrom(h, TEAM.id, 'firewall 42'))).toMatch(REFUSED);
  });
});
