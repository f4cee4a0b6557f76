import { request } from 'undici';
import { AUDIT_CHANNEL, CHANNELS, MADE_UP_ROLES, ON_CALL_PERSON, ONCALL_GROUP, PEOPLE } from '../src/workspace';
import { snapshot } from '../src/page-server';
import { signedWith, useStandInWithBot } from './with-bot';

// The stand-in refuses what Slack refuses, with Slack's error codes, and
// behaves as Slack does towards the bot: signed requests, trigger_ids that
// expire, response_url semantics, acks of view submissions, injected faults.

const TOKEN = 'xoxb-standin-test';
let clock = 1_700_000_000_000;
let botAnswer: (body: string) => { status: number; body: string } = () => ({ status: 200, body: '' });
const slack = useStandInWithBot({ botToken: TOKEN, signingSecret: 'shh', now: () => clock }, (body) => botAnswer(body));
beforeEach(() => {
  botAnswer = () => ({ status: 200, body: '' });
});

const api = (method: string, args: Record<string, unknown>, token?: string) => slack.api(method, args, token);

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

describe('Block Kit limits and bad arguments, refused with Slack’s error codes', () => {
  test('51 blocks in a message: invalid_blocks, with the pointer Slack names, shown to the developer', async () => {
    const res = await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x', blocks: Array.from({ length: 51 }, () => section('row')) });
    expect(res.body).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect((res.body.response_metadata as { messages: string[] }).messages).toContain('[ERROR] must be less than 51 items [json-pointer:/blocks]');
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ source: 'chat.postMessage', error: 'invalid_blocks', channel: 'C0INCIDENT' });
    expect(slack.standIn.messagesIn('C0INCIDENT')).toHaveLength(0);
  });

  test.each([
    ['section text over 3000', [section('x'.repeat(3001))], '/blocks/0/text/text'],
    ['11 fields', [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) }], '/blocks/0/fields'],
    ['header over 150', [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }], '/blocks/0/text/text'],
    ['a mrkdwn header', [{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }], '/blocks/0/text/type'],
    [
      'button text over 75',
      [{ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b'.repeat(76) } }] }],
      '/blocks/0/elements/0/text/text',
    ],
    [
      'a button style Slack does not know',
      [{ type: 'actions', elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'b' }, style: 'green' }] }],
      '/blocks/0/elements/0/style',
    ],
    ['an unknown block type', [{ type: 'carousel' }], '/blocks/0/type'],
    ['an input block in a message', [{ type: 'input', label: { type: 'plain_text', text: 'l' }, element: { type: 'plain_text_input' } }], '/blocks/0/type'],
    ['a rich text element Slack does not know', [{ type: 'rich_text', elements: [{ type: 'rich_text_table', elements: [] }] }], '/blocks/0/elements/0/type'],
    [
      'a rich text run without its text',
      [{ type: 'rich_text', elements: [{ type: 'rich_text_preformatted', elements: [{ type: 'text' }] }] }],
      '/blocks/0/elements/0/elements/0/text',
    ],
    [
      'a list item that is not a section',
      [{ type: 'rich_text', elements: [{ type: 'rich_text_list', style: 'bullet', elements: [{ type: 'text', text: 'x' }] }] }],
      '/blocks/0/elements/0/elements/0/type',
    ],
  ])('%s', async (_name, blocks, pointer) => {
    const res = await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x', blocks });
    expect(res.body.error).toBe('invalid_blocks');
    expect(JSON.stringify(res.body.response_metadata)).toContain(`[json-pointer:${pointer}]`);
  });

  test('text over 40,000 characters: msg_too_long; no text at all: no_text; an unknown channel: channel_not_found', async () => {
    expect((await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x'.repeat(40_001) })).body.error).toBe('msg_too_long');
    expect((await api('chat.postMessage', { channel: 'C0INCIDENT' })).body.error).toBe('no_text');
    expect((await api('chat.postMessage', { channel: 'C0NOWHERE', text: 'x' })).body.error).toBe('channel_not_found');
  });

  test('a wrong token: invalid_auth; none: not_authed', async () => {
    expect((await api('auth.test', {}, 'xoxb-wrong')).body.error).toBe('invalid_auth');
    expect((await api('auth.test', {}, '')).body.error).toBe('not_authed');
    expect((await api('auth.test', {})).body).toMatchObject({ ok: true, user_id: 'U0VSCHATOPS' });
  });

  test('a modal title over 24 characters: invalid_arguments', async () => {
    const { triggerId } = await slack.standIn.command('U0OPERATOR', 'C0INCIDENT', 'disk add 42');
    const res = await api('views.open', {
      trigger_id: triggerId,
      view: { type: 'modal', title: { type: 'plain_text', text: 'A title far longer than Slack allows' }, blocks: [] },
    });
    expect(res.body.error).toBe('invalid_arguments');
    expect(JSON.stringify(res.body.response_metadata)).toContain('[json-pointer:/title/text]');
  });
});

describe('trigger_ids', () => {
  const modal = {
    type: 'modal',
    title: { type: 'plain_text', text: 'Add disk' },
    submit: { type: 'plain_text', text: 'Add' },
    blocks: [
      {
        type: 'input',
        block_id: 'size',
        label: { type: 'plain_text', text: 'Size' },
        element: { type: 'number_input', action_id: 'size', is_decimal_allowed: false },
      },
    ],
  };

  test('work once, within 3 s, for the person who acted', async () => {
    const { triggerId } = await slack.standIn.command('U0OPERATOR', 'C0INCIDENT', 'disk add 42');
    const opened = await api('views.open', { trigger_id: triggerId, view: modal });
    expect(opened.body).toMatchObject({ ok: true, view: { type: 'modal', state: { values: {} } } });
    expect(slack.standIn.viewOf('U0OPERATOR')?.view.title).toEqual(modal.title);
    expect((await api('views.open', { trigger_id: triggerId, view: modal })).body.error).toBe('exchanged_trigger_id');
  });

  test('expire after 3 s; one never issued is invalid', async () => {
    const { triggerId } = await slack.standIn.command('U0OPERATOR', 'C0INCIDENT', 'disk add 42');
    clock += 3001;
    expect((await api('views.open', { trigger_id: triggerId, view: modal })).body.error).toBe('expired_trigger_id');
    expect((await api('views.open', { trigger_id: '123.456.abc', view: modal })).body.error).toBe('invalid_trigger_id');
  });
});

describe('requests to the bot', () => {
  test('are signed as Slack signs them', async () => {
    await slack.standIn.command('U0VIEWER', 'C0INCIDENT', 'firewall 42');
    const [request_] = slack.received;
    expect(signedWith(request_!, 'shh')).toBe(true);
    const form = new URLSearchParams(request_!.body);
    expect(form.get('command')).toBe('/vs');
    expect(form.get('text')).toBe('firewall 42');
    expect(form.get('response_url')).toMatch(new RegExp(`^${slack.standIn.origin}/response/`));
  });

  test('a person named in a command arrives as Slack escapes a mention (<@U…|name>); a name nobody has, as typed', async () => {
    await slack.standIn.command('U0ADMIN', 'C0INCIDENT', 'audit 5 @Vera');
    await slack.standIn.command('U0ADMIN', 'C0INCIDENT', 'audit @nobody');
    const [vera, nobody] = slack.received.map((r) => new URLSearchParams(r.body).get('text'));
    expect(vera).toBe('audit 5 <@U0VIEWER|vera>');
    expect(nobody).toBe('audit @nobody');
  });

  test('an ack that is not 200 is told to the person, as Slack does', async () => {
    botAnswer = () => ({ status: 500, body: '' });
    await slack.standIn.command('U0VIEWER', 'C0INCIDENT', 'firewall 42');
    expect(slack.standIn.messagesIn('C0INCIDENT', 'U0VIEWER').at(-1)).toMatchObject({
      kind: 'notice',
      ephemeralTo: 'U0VIEWER',
      text: '/vs failed with the error "dispatch_failed"',
    });
  });
});

describe('response_url semantics', () => {
  async function postTo(url: string, body: unknown) {
    const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.statusCode, text: await res.body.text() };
  }

  test('ephemeral by default, in_channel for everyone, replace_original in place, delete_original removes', async () => {
    const { responseUrl } = await slack.standIn.command('U0VIEWER', 'C0GENERAL', 'firewall 45');
    expect(await postTo(responseUrl, { text: 'just you' })).toEqual({ status: 200, text: 'ok' });
    expect(slack.standIn.messagesIn('C0GENERAL', 'U0ADMIN').map((m) => m.text)).not.toContain('just you');
    expect(
      await postTo(responseUrl, {
        response_type: 'in_channel',
        text: 'page 1',
        blocks: [
          section('page 1'),
          { type: 'actions', elements: [{ type: 'button', action_id: 'firewall_page_next', text: { type: 'plain_text', text: 'Next' }, value: '45:2' }] },
        ],
      }),
    ).toMatchObject({ status: 200 });
    const summary = slack.standIn.messagesIn('C0GENERAL', 'U0ADMIN').find((m) => m.text === 'page 1')!;
    // A click on Next gets a response_url tied to that message.
    await slack.standIn.click('U0VIEWER', { channel: 'C0GENERAL', ts: summary.ts }, 'firewall_page_next');
    const click = JSON.parse(new URLSearchParams(slack.received.at(-1)!.body).get('payload')!) as {
      response_url: string;
      actions: { action_id: string; value: string }[];
      container: { message_ts: string };
    };
    expect(click.actions[0]).toMatchObject({ action_id: 'firewall_page_next', value: '45:2' });
    expect(click.container.message_ts).toBe(summary.ts);
    await postTo(click.response_url, { replace_original: true, text: 'page 2' });
    const after = slack.standIn.messagesIn('C0GENERAL', 'U0ADMIN').filter((m) => m.kind === 'bot');
    expect(after.map((m) => [m.ts, m.text, m.replaced])).toEqual([[summary.ts, 'page 2', true]]);
    await postTo(click.response_url, { delete_original: true });
    expect(slack.standIn.messagesIn('C0GENERAL', 'U0ADMIN').filter((m) => m.kind === 'bot')).toHaveLength(0);
  });

  test('invalid blocks: 400 invalid_blocks; a URL never issued: 404; used five times: 404 used_url', async () => {
    const { responseUrl } = await slack.standIn.command('U0VIEWER', 'C0GENERAL', 'help');
    expect(await postTo(responseUrl, { text: 'x', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] })).toEqual({
      status: 400,
      text: 'invalid_blocks',
    });
    expect((await postTo(`${slack.standIn.origin}/response/RNEVER`, { text: 'x' })).status).toBe(404);
    for (let i = 0; i < 5; i++) expect((await postTo(responseUrl, { text: `answer ${i}` })).status).toBe(200);
    expect(await postTo(responseUrl, { text: 'sixth' })).toEqual({ status: 404, text: 'used_url' });
  });

  test('a 2,000-line list in one message (51 sections): 400 invalid_blocks on a response_url, nothing shown', async () => {
    const { responseUrl } = await slack.standIn.command('U0VIEWER', 'C0GENERAL', 'disks 42');
    const shown = () => slack.standIn.messagesIn('C0GENERAL').filter((m) => m.kind === 'bot').length;
    const before = shown();
    const blocks = Array.from({ length: 51 }, (_, i) => section(Array.from({ length: 40 }, (_, j) => `disk ${i * 40 + j}`).join('\n')));
    expect(await postTo(responseUrl, { response_type: 'in_channel', text: 'disks', blocks })).toEqual({ status: 400, text: 'invalid_blocks' });
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ source: 'response_url', error: 'invalid_blocks', channel: 'C0GENERAL' });
    expect(shown()).toBe(before);
  });

  test("fault('response_url'): posts refused as Slack refuses them (400 invalid_blocks unless told), as many times as told", async () => {
    const { responseUrl } = await slack.standIn.command('U0VIEWER', 'C0GENERAL', 'help');
    slack.standIn.fault('response_url', { times: 1 });
    expect(await postTo(responseUrl, { text: 'refused' })).toEqual({ status: 400, text: 'invalid_blocks' });
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ source: 'response_url', error: 'invalid_blocks' });
    expect(await postTo(responseUrl, { text: 'taken' })).toEqual({ status: 200, text: 'ok' });
    slack.standIn.fault('response_url', { status: 413, error: 'request_too_large' });
    expect(await postTo(responseUrl, { text: 'again' })).toEqual({ status: 413, text: 'request_too_large' });
  });
});

describe('view submissions and their acks', () => {
  const form = {
    type: 'modal',
    callback_id: 'disk_add',
    title: { type: 'plain_text', text: 'Add disk' },
    submit: { type: 'plain_text', text: 'Add' },
    blocks: [
      {
        type: 'input',
        block_id: 'disk_size',
        label: { type: 'plain_text', text: 'Size (GB)' },
        element: { type: 'number_input', action_id: 'disk_size', is_decimal_allowed: false, min_value: '1' },
      },
      {
        type: 'input',
        block_id: 'is_swap',
        optional: true,
        label: { type: 'plain_text', text: 'Swap' },
        element: { type: 'checkboxes', action_id: 'is_swap', options: [{ text: { type: 'plain_text', text: 'Swap' }, value: 'true' }] },
      },
    ],
  };

  async function open(): Promise<string> {
    const { triggerId } = await slack.standIn.command('U0OPERATOR', 'C0INCIDENT', 'disk add 42');
    const res = await api('views.open', { trigger_id: triggerId, view: form });
    return (res.body.view as { id: string }).id;
  }

  test('a required field left empty or a number below its minimum never reaches the app', async () => {
    const viewId = await open();
    slack.received.length = 0;
    expect(await slack.standIn.submit('U0OPERATOR', viewId, {})).toMatchObject({
      outcome: 'errors',
      errors: { disk_size: 'Please complete this required field.' },
    });
    expect(await slack.standIn.submit('U0OPERATOR', viewId, { disk_size: '0' })).toMatchObject({
      outcome: 'errors',
      errors: { disk_size: expect.stringMatching(/1 or more/) },
    });
    expect(slack.received).toHaveLength(0);
  });

  test('the state reaches the app as Slack shapes it; errors are shown, update replaces, an empty ack closes', async () => {
    const viewId = await open();
    botAnswer = () => ({ status: 200, body: JSON.stringify({ response_action: 'errors', errors: { disk_size: 'Too big' } }) });
    expect(await slack.standIn.submit('U0OPERATOR', viewId, { disk_size: '20', is_swap: ['true'] })).toMatchObject({
      outcome: 'errors',
      errors: { disk_size: 'Too big' },
    });
    const payload = JSON.parse(new URLSearchParams(slack.received.at(-1)!.body).get('payload')!) as {
      type: string;
      view: { id: string; state: { values: Record<string, Record<string, unknown>> } };
    };
    expect(payload.type).toBe('view_submission');
    expect(payload.view.state.values).toEqual({
      disk_size: { disk_size: { type: 'number_input', value: '20' } },
      is_swap: { is_swap: { type: 'checkboxes', selected_options: [{ text: { type: 'plain_text', text: 'Swap' }, value: 'true' }] } },
    });
    expect(slack.standIn.viewOf('U0OPERATOR')?.errors).toEqual({ disk_size: 'Too big' });

    botAnswer = () => ({ status: 200, body: JSON.stringify({ response_action: 'errors', errors: { nowhere: 'x' } }) });
    expect(await slack.standIn.submit('U0OPERATOR', viewId, { disk_size: '20' })).toMatchObject({ outcome: 'failed' });
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ error: 'invalid_arguments' });

    botAnswer = () => ({
      status: 200,
      body: JSON.stringify({
        response_action: 'update',
        view: { type: 'modal', title: { type: 'plain_text', text: 'Add disk' }, close: { type: 'plain_text', text: 'Close' }, blocks: [section('Working…')] },
      }),
    });
    expect(await slack.standIn.submit('U0OPERATOR', viewId, { disk_size: '20' })).toMatchObject({ outcome: 'updated' });
    expect(slack.standIn.viewOf('U0OPERATOR')?.view.blocks).toEqual([section('Working…')]);
    // The new view replaces the old one whole: no submit button left over from the form.
    expect(slack.standIn.viewOf('U0OPERATOR')?.view.submit).toBeNull();
    expect(slack.standIn.viewOf('U0OPERATOR')?.id).toBe(viewId);
    expect(
      (await api('views.update', { view_id: viewId, view: { type: 'modal', title: { type: 'plain_text', text: 'Add disk' }, blocks: [section('Done')] } })).body
        .ok,
    ).toBe(true);
    expect(slack.standIn.viewOf('U0OPERATOR')?.view.blocks).toEqual([section('Done')]);

    await slack.standIn.closeView('U0OPERATOR', viewId);
    expect(slack.standIn.viewOf('U0OPERATOR')).toBeUndefined();
    expect((await api('views.update', { view_id: viewId, view: { type: 'modal', title: { type: 'plain_text', text: 'x' }, blocks: [] } })).body.error).toBe(
      'not_found',
    );
  });
});

describe('the Home tab', () => {
  const home = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'home', blocks: [section(text)], ...extra });
  const deliveredEvents = () =>
    slack.received
      .filter((r) => String(r.headers['content-type']).startsWith('application/json'))
      .map((r) => ({ r, body: JSON.parse(r.body) as { type: string; event_id: string; event: Record<string, unknown> } }));

  test('opening it sends the bot a signed app_home_opened in the Events API envelope; once published, the event carries the view', async () => {
    const people = ['U0OPERATOR', 'U0VIEWER'];
    await slack.standIn.openHome(people[0]!);
    const [first] = deliveredEvents();
    expect(signedWith(first!.r, 'shh')).toBe(true);
    expect(first!.body).toMatchObject({ type: 'event_callback', team_id: 'T0LOCAL', api_app_id: 'A0VSCHATOPS', event_id: expect.stringMatching(/^Ev/) });
    expect(first!.body.event).toMatchObject({ type: 'app_home_opened', user: 'U0OPERATOR', tab: 'home', channel: expect.stringMatching(/^D/) });
    expect(first!.body.event.view).toBeUndefined();

    const published = await api('views.publish', { user_id: 'U0OPERATOR', view: home('Hello Otto') });
    expect(published.body).toMatchObject({ ok: true, view: { type: 'home', blocks: [section('Hello Otto')] } });
    await slack.standIn.openHome('U0OPERATOR');
    const second = deliveredEvents()[1]!;
    expect(second.body.event_id).not.toBe(first!.body.event_id);
    expect(second.body.event.view).toMatchObject({ id: (published.body.view as { id: string }).id, type: 'home' });
    // Each person has their own.
    expect(slack.standIn.state.homes.has('U0VIEWER')).toBe(false);
  });

  test('views.publish keeps one view per person: the same id, a new hash each time, hash_conflict for a stale hash', async () => {
    const first = (await api('views.publish', { user_id: 'U0VIEWER', view: home('one') })).body.view as { id: string; hash: string };
    clock += 1000;
    const second = (await api('views.publish', { user_id: 'U0VIEWER', view: home('two'), hash: first.hash })).body.view as { id: string; hash: string };
    expect(second.id).toBe(first.id);
    expect(second.hash).not.toBe(first.hash);
    expect((await api('views.publish', { user_id: 'U0VIEWER', view: home('three'), hash: first.hash })).body.error).toBe('hash_conflict');
    expect(slack.standIn.state.homes.get('U0VIEWER')?.blocks).toEqual([section('two')]);
  });

  test.each([
    ['a modal', { user_id: 'U0ADMIN', view: { type: 'modal', title: { type: 'plain_text', text: 't' }, blocks: [] } }, 'invalid_arguments', '/view/type'],
    [
      '101 blocks',
      { user_id: 'U0ADMIN', view: { type: 'home', blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) } },
      'invalid_arguments',
      '/blocks',
    ],
    ['section text over 3000', { user_id: 'U0ADMIN', view: home('x'.repeat(3001)) }, 'invalid_arguments', '/blocks/0/text/text'],
    ['no user_id', { view: home('x') }, 'invalid_arguments', null],
    ['a person the workspace does not have', { user_id: 'U0NOBODY', view: home('x') }, 'user_not_found', null],
    [
      'over 250 kB',
      { user_id: 'U0ADMIN', view: { type: 'home', blocks: Array.from({ length: 100 }, () => section('y'.repeat(2900))) } },
      'view_too_large',
      null,
    ],
  ])('views.publish refuses %s as Slack does', async (_name, args, error, pointer) => {
    const res = await api('views.publish', args);
    expect(res.body).toMatchObject({ ok: false, error });
    if (pointer) expect(JSON.stringify(res.body.response_metadata)).toContain(`[json-pointer:${pointer}]`);
    expect(slack.standIn.state.homes.has('U0ADMIN')).toBe(false);
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ source: 'views.publish', error });
  });

  test('a button in it reaches the bot as block_actions from the view (no channel, no response_url); only its owner can press it', async () => {
    const view = (
      await api('views.publish', {
        user_id: 'U0ADMIN',
        view: home('Pending', {
          blocks: [
            { type: 'actions', block_id: 'b', elements: [{ type: 'button', action_id: 'home_go', value: '7', text: { type: 'plain_text', text: 'Go' } }] },
          ],
        }),
      })
    ).body.view as { id: string };
    expect(await slack.standIn.click('U0VIEWER', { viewId: view.id }, 'home_go')).toEqual({ error: 'no such view' });
    expect(slack.received).toHaveLength(0);
    expect((await slack.standIn.click('U0ADMIN', { viewId: view.id }, 'home_go')).ack).toMatchObject({ status: 200 });
    const payload = JSON.parse(new URLSearchParams(slack.received.at(-1)!.body).get('payload')!) as Record<string, unknown>;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0ADMIN' },
      container: { type: 'view', view_id: view.id },
      view: { id: view.id, type: 'home' },
      actions: [{ action_id: 'home_go', value: '7', block_id: 'b' }],
      trigger_id: expect.any(String),
    });
    expect(payload.response_url).toBeUndefined();
    expect(payload.channel).toBeUndefined();
  });

  test('buttons of one action_id in several blocks (one per request) are told apart by their block_id', async () => {
    const approve = (id: string) => ({
      type: 'actions',
      block_id: `approval_${id}`,
      elements: [{ type: 'button', action_id: 'approval_approve', value: id, text: { type: 'plain_text', text: 'Approve' } }],
    });
    const view = (await api('views.publish', { user_id: 'U0ADMIN', view: home('Pending', { blocks: [approve('a1'), approve('a2')] }) })).body.view as {
      id: string;
    };
    expect((await slack.standIn.click('U0ADMIN', { viewId: view.id }, 'approval_approve', 'approval_a2')).ack).toMatchObject({ status: 200 });
    const payload = JSON.parse(new URLSearchParams(slack.received.at(-1)!.body).get('payload')!) as Record<string, unknown>;
    expect(payload.actions).toMatchObject([{ action_id: 'approval_approve', block_id: 'approval_a2', value: 'a2' }]);
    expect(await slack.standIn.click('U0ADMIN', { viewId: view.id }, 'approval_approve', 'approval_a3')).toEqual({ error: 'no such button' });
  });
});

describe('threads', () => {
  // In #general: the tests of chat.update count the bot's messages in #incident-42.
  test('chat.postMessage with thread_ts is a reply in that message’s thread: kept with its thread_ts, answered with it', async () => {
    const parent = (await api('chat.postMessage', { channel: 'C0GENERAL', text: 'asked' })).body.ts as string;
    const reply = await api('chat.postMessage', { channel: 'C0GENERAL', thread_ts: parent, text: '<@U0ADMIN> denied' });
    expect(reply.body).toMatchObject({ ok: true, message: { thread_ts: parent, text: '<@U0ADMIN> denied' } });
    expect(slack.standIn.messagesIn('C0GENERAL').find((m) => m.ts === reply.body.ts)).toMatchObject({ threadTs: parent, kind: 'bot' });
    expect(slack.standIn.messagesIn('C0GENERAL').find((m) => m.ts === parent)!.threadTs).toBeUndefined();
  });
});

describe('chat.update', () => {
  const actions = { type: 'actions', elements: [{ type: 'button', action_id: 'approve', text: { type: 'plain_text', text: 'Approve' } }] };

  test('replaces the message in place (same ts, marked updated, seen by everyone at once); what is not sent is kept', async () => {
    const posted = await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'asked', blocks: [section('asked'), actions] });
    const ts = posted.body.ts as string;
    const seen: unknown[] = [];
    const stop = slack.standIn.state.subscribe((e) => e.type === 'message' && seen.push(e.message));
    const updated = await api('chat.update', { channel: 'C0INCIDENT', ts, text: 'approved', blocks: [section('approved by Ada')] });
    expect(updated.body).toMatchObject({ ok: true, channel: 'C0INCIDENT', ts, message: { text: 'approved', blocks: [section('approved by Ada')] } });
    expect(slack.standIn.messagesIn('C0INCIDENT', 'U0VIEWER').filter((m) => m.kind === 'bot')).toEqual([
      expect.objectContaining({ ts, text: 'approved', blocks: [section('approved by Ada')], replaced: true }),
    ]);
    expect(seen).toEqual([expect.objectContaining({ ts, text: 'approved' })]);
    // Text alone keeps the blocks; an empty list of blocks removes them.
    await api('chat.update', { channel: 'C0INCIDENT', ts, text: 'approved (text only)' });
    expect(slack.standIn.messagesIn('C0INCIDENT').find((m) => m.ts === ts)).toMatchObject({
      text: 'approved (text only)',
      blocks: [section('approved by Ada')],
    });
    await api('chat.update', { channel: 'C0INCIDENT', ts, text: 'plain', blocks: [] });
    expect(slack.standIn.messagesIn('C0INCIDENT').find((m) => m.ts === ts)?.blocks).toBeUndefined();
    stop();
  });

  test('message_not_found, cant_update_message for an ephemeral one, invalid_blocks as for a new message', async () => {
    expect((await api('chat.update', { channel: 'C0INCIDENT', ts: '1.000001', text: 'x' })).body.error).toBe('message_not_found');
    const ephemeral = await api('chat.postEphemeral', { channel: 'C0INCIDENT', user: 'U0ADMIN', text: 'only Ada' });
    expect((await api('chat.update', { channel: 'C0INCIDENT', ts: ephemeral.body.message_ts, text: 'x' })).body.error).toBe('cant_update_message');
    const ts = (await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x' })).body.ts;
    expect((await api('chat.update', { channel: 'C0INCIDENT', ts, text: 'x', blocks: Array.from({ length: 51 }, () => section('r')) })).body.error).toBe(
      'invalid_blocks',
    );
  });
});

describe('channel membership, paged as Slack pages it', () => {
  const big = Array.from({ length: 50_000 }, (_, i) => (i === 31_234 ? 'U0OPERATOR' : `UMEMBER${i}`));
  beforeAll(() => slack.standIn.setChannelMembers('C0BIG', big));

  test('conversations.members: 100 a page by default, at most 1000, next_cursor empty on the last page', async () => {
    expect(((await api('conversations.members', { channel: 'C0BIG' })).body.members as string[]).length).toBe(100);
    const seen: string[] = [];
    let cursor = '';
    let calls = 0;
    do {
      const { body } = await api('conversations.members', { channel: 'C0BIG', limit: 5000, cursor });
      expect(body.ok).toBe(true);
      seen.push(...(body.members as string[]));
      cursor = (body.response_metadata as { next_cursor: string }).next_cursor;
      calls++;
    } while (cursor !== '');
    expect(calls).toBe(50);
    expect(seen).toEqual(big);
    expect((await api('conversations.members', { channel: 'C0BIG', cursor: 'not-a-cursor' })).body).toMatchObject({ ok: false, error: 'invalid_cursor' });
  });

  test('users.conversations: the channels the person asked about is in, whatever their size; an unknown person: user_not_found', async () => {
    const idsOf = async (args: Record<string, unknown>) =>
      ((await api('users.conversations', { types: 'public_channel,private_channel', limit: 999, ...args })).body.channels as { id: string }[]).map((c) => c.id);
    expect(await idsOf({ user: 'U0OPERATOR' })).toEqual([...CHANNELS.map((c) => c.id), 'C0BIG']);
    expect(await idsOf({ user: 'U0ADMIN' })).toEqual(CHANNELS.map((c) => c.id));
    expect(await idsOf({ user: 'U0OPERATOR', types: 'im' })).toEqual([]);
    expect((await api('users.conversations', { user: 'U0NOBODY' })).body).toMatchObject({ ok: false, error: 'user_not_found' });
  });
});

describe("files to a person: conversations.open, then Slack's upload API", () => {
  test("a DM per person, the same each time; the upload URL on the stand-in's origin takes the bytes once; the file is shared and downloads", async () => {
    const opened = await api('conversations.open', { users: 'U0VIEWER' });
    expect(opened.body).toMatchObject({ ok: true, channel: { is_im: true, user: 'U0VIEWER' } });
    const dm = (opened.body.channel as { id: string }).id;
    expect(dm).toMatch(/^D/);
    expect((await api('conversations.open', { users: 'U0VIEWER' })).body).toMatchObject({ ok: true, already_open: true, channel: { id: dm } });

    const csv = 'a,b\r\n1,2\r\n';
    const target = await api('files.getUploadURLExternal', { filename: 'rules.csv', length: Buffer.byteLength(csv) });
    expect(target.body).toMatchObject({ ok: true, file_id: expect.stringMatching(/^F/) });
    const uploadUrl = target.body.upload_url as string;
    expect(uploadUrl.startsWith(`${slack.standIn.origin}/upload/v1/`)).toBe(true);
    const put = await request(uploadUrl, { method: 'POST', body: csv });
    expect(put.statusCode).toBe(200);
    expect(await put.body.text()).toBe(`OK - ${Buffer.byteLength(csv)}`);
    expect((await request(uploadUrl, { method: 'POST', body: csv })).statusCode).toBe(404);

    const done = await api('files.completeUploadExternal', {
      files: JSON.stringify([{ id: target.body.file_id, title: 'Rules' }]),
      channel_id: dm,
      initial_comment: 'Here',
    });
    expect(done.body).toMatchObject({ ok: true, files: [{ id: target.body.file_id, title: 'Rules' }] });
    const [message] = slack.standIn.messagesIn(dm, 'U0VIEWER');
    expect(message).toMatchObject({ text: 'Here', files: [{ name: 'rules.csv', title: 'Rules', mimetype: 'text/csv', size: Buffer.byteLength(csv) }] });
    // Only the person sees their DM.
    expect(slack.standIn.messagesIn(dm, 'U0ADMIN')).toEqual([]);
    const download = await request(message!.files![0]!.url_private_download);
    expect(download.headers['content-disposition']).toBe('attachment; filename="rules.csv"');
    expect(await download.body.text()).toBe(csv);
  });

  test('refused as Slack refuses: no filename or length, a file never uploaded, an unknown channel, someone unknown', async () => {
    expect((await api('files.getUploadURLExternal', { filename: '', length: 3 })).body).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect((await api('files.getUploadURLExternal', { filename: 'x.csv', length: 0 })).body).toMatchObject({ ok: false, error: 'invalid_arguments' });
    const target = await api('files.getUploadURLExternal', { filename: 'x.csv', length: 3 });
    const files = JSON.stringify([{ id: target.body.file_id }]);
    expect((await api('files.completeUploadExternal', { files, channel_id: 'C0INCIDENT' })).body).toMatchObject({ ok: false, error: 'file_not_found' });
    await request(target.body.upload_url as string, { method: 'POST', body: 'a,b' });
    expect((await api('files.completeUploadExternal', { files, channel_id: 'C0NOWHERE' })).body).toMatchObject({ ok: false, error: 'channel_not_found' });
    expect((await api('conversations.open', { users: 'U0NOBODY' })).body).toMatchObject({ ok: false, error: 'user_not_found' });
    expect((await api('conversations.open', {})).body).toMatchObject({ ok: false, error: 'users_list_not_supplied' });
  });
});

describe('the make-believe workspace', () => {
  test('its made-up roles name its people and its group, and its audit channel is one of its channels', () => {
    const ids = new Set([...PEOPLE.map((p) => p.id), ONCALL_GROUP.id]);
    expect([...MADE_UP_ROLES.admins, ...MADE_UP_ROLES.operators].filter((id) => !ids.has(id))).toEqual([]);
    expect(MADE_UP_ROLES.admins.length).toBeGreaterThanOrEqual(2);
    expect(CHANNELS).toContain(AUDIT_CHANNEL);
  });

  test('the on-call group answers with its handle and its members, as Slack’s usergroups methods do', async () => {
    expect((await api('usergroups.users.list', { usergroup: ONCALL_GROUP.id })).body).toEqual({ ok: true, users: [...ONCALL_GROUP.members] });
    expect((await api('usergroups.list', {})).body).toMatchObject({
      ok: true,
      usergroups: [{ id: ONCALL_GROUP.id, handle: ONCALL_GROUP.handle, users: [...ONCALL_GROUP.members] }],
    });
    expect(ONCALL_GROUP.members.every((id) => PEOPLE.some((p) => p.id === id))).toBe(true);
  });
});

describe('people, links and the incident tool’s timeline', () => {
  test('users.info gives each person’s profile with the email an on-call tool matches them by; an unknown one: user_not_found', async () => {
    const { body } = await api('users.info', { user: ON_CALL_PERSON.id });
    expect(body).toMatchObject({ ok: true, user: { id: ON_CALL_PERSON.id, profile: { email: ON_CALL_PERSON.email, real_name: ON_CALL_PERSON.name } } });
    expect(PEOPLE.every((p) => typeof p.email === 'string' && p.email.endsWith('@example.com'))).toBe(true);
    expect(new Set(PEOPLE.map((p) => p.email)).size).toBe(PEOPLE.length);
    expect((await api('users.info', { user: 'U0NOBODY' })).body).toMatchObject({ ok: false, error: 'user_not_found' });
  });

  test('chat.getPermalink links to the page, which opens the message’s channel', async () => {
    const { body } = await api('chat.getPermalink', { channel: 'C0INCIDENT', message_ts: '1700000000.000100' });
    expect(body).toEqual({ ok: true, channel: 'C0INCIDENT', permalink: `${slack.standIn.origin}/?channel=C0INCIDENT&message=1700000000.000100` });
    expect((await api('chat.getPermalink', { channel: 'C0NOWHERE', message_ts: '1.2' })).body).toMatchObject({ ok: false, error: 'channel_not_found' });
  });

  test('entries of the incident tool’s timeline are kept for the page, and told to it as they come', () => {
    const seen: unknown[] = [];
    const unsubscribe = slack.standIn.state.subscribe((e) => seen.push(e));
    const entry = { receivedAt: '2025-06-01T12:00:01.000Z', summary: 'VS 42: reboot done — asked by Ada', timestamp: '2025-06-01T12:00:00.000Z', link: null };
    slack.standIn.addTimelineEntry(entry);
    unsubscribe();
    expect(seen).toEqual([{ type: 'timeline', entry }]);
    expect(snapshot({ ...slack.standIn, state: slack.standIn.state, notes: [] }).timeline).toContainEqual(entry);
  });
});

describe('fault injection', () => {
  test('429 with Retry-After, ok:false with a given error, a slow answer, and only as many times as asked', async () => {
    slack.standIn.fault('chat.postMessage', { status: 429, retryAfterSeconds: 7, times: 1 });
    const limited = await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.body).toEqual({ ok: false, error: 'ratelimited' });
    expect((await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x' })).body.ok).toBe(true);

    slack.standIn.fault('usergroups.users.list', { error: 'fatal_error' });
    expect((await api('usergroups.users.list', { usergroup: 'S0ONCALL' })).body).toEqual({ ok: false, error: 'fatal_error' });

    slack.standIn.fault('auth.test', { delayMs: 150, times: 1 });
    const started = Date.now();
    const slow = api('auth.test', {});
    const first = await Promise.race([slow.then(() => 'answer'), new Promise((r) => setTimeout(() => r('still waiting'), 50))]);
    expect(first).toBe('still waiting');
    expect((await slow).body.ok).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(slack.standIn.callsTo('auth.test').map((c) => c.ok)).toEqual([true]);
  });
});
