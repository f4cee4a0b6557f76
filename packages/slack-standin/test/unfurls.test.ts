import { linksOf } from '../src/events';
import { signedWith, useStandInWithBot } from './with-bot';

// Link unfurls as the stand-in does them, Slack's way: a person's message
// with links of the app's unfurl domains reaches the app as a signed
// link_shared event (JSON, event_callback); chat.unfurl attaches cards to
// that message by channel and ts or by unfurl_id, and refuses with Slack's
// error codes what Slack would refuse.

const TOKEN = 'xoxb-unfurl-test';
const PANEL = 'https://panel.example.com';
const slack = useStandInWithBot({ botToken: TOKEN, signingSecret: 'shh', panel: { url: PANEL, servers: [42, 43] } });
const api = async (method: string, args: Record<string, unknown>) => (await slack.api(method, args)).body;

type LinkShared = {
  type: string;
  event: { type: string; user: string; channel: string; message_ts: string; unfurl_id: string; source: string; links: { url: string; domain: string }[] };
};

const card = (text: string) => ({ blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });

/** Posts as Vera in #incident; returns the message and the link_shared the app slack.received (if any). */
async function post(text: string) {
  const { message, ack } = await slack.standIn.post('U0VIEWER', 'C0INCIDENT', text);
  const event = slack.received.length > 0 ? (JSON.parse(slack.received.at(-1)!.body) as LinkShared) : undefined;
  return { message, ack, event };
}

describe('a message with links of the unfurl domain', () => {
  test('reaches the app as link_shared, signed and in JSON, naming the message, the poster and each link once', async () => {
    const { message, ack, event } = await post(`see ${PANEL}/virtual_machines/42, <${PANEL}/virtual_machines/43|VS 43> and ${PANEL}/virtual_machines/42`);
    expect(ack?.status).toBe(200);
    expect(slack.received).toHaveLength(1);
    expect(slack.received[0]!.headers['content-type']).toBe('application/json');
    expect(signedWith(slack.received[0]!, 'shh')).toBe(true);
    expect(event).toMatchObject({
      type: 'event_callback',
      event: {
        type: 'link_shared',
        user: 'U0VIEWER',
        channel: 'C0INCIDENT',
        message_ts: message.ts,
        source: 'conversations_history',
        links: [
          { url: `${PANEL}/virtual_machines/42`, domain: 'panel.example.com' },
          { url: `${PANEL}/virtual_machines/43`, domain: 'panel.example.com' },
        ],
      },
    });
    expect(event!.event.unfurl_id).toEqual(expect.any(String));
    expect(slack.standIn.messagesIn('C0INCIDENT').at(-1)).toMatchObject({ kind: 'post', author: 'U0VIEWER', ts: message.ts });
  });

  test('a message without such links is posted, and the app hears nothing of it', async () => {
    const { ack } = await post('nothing to see at https://example.com/virtual_machines/42 or panel.example.com/virtual_machines/42');
    expect(ack).toBeUndefined();
    expect(slack.received).toEqual([]);
  });

  test('a domain covers its subdomains, not look-alikes; trailing punctuation ends the sentence, not the link', () => {
    expect(linksOf('https://eu.panel.example.com/a. https://panel.example.com.evil.example/b https://notpanel.example.com/c', ['panel.example.com'])).toEqual([
      { url: 'https://eu.panel.example.com/a', domain: 'panel.example.com' },
    ]);
  });
});

describe('chat.unfurl', () => {
  test('attaches a card under the message by channel and ts; again, it replaces that link’s card', async () => {
    const url = `${PANEL}/virtual_machines/42`;
    const { message } = await post(`look: ${url}`);
    expect(await api('chat.unfurl', { channel: 'C0INCIDENT', ts: message.ts, unfurls: { [url]: card('first') } })).toEqual({ ok: true });
    expect(await api('chat.unfurl', { channel: 'C0INCIDENT', ts: message.ts, unfurls: { [url]: card('second') } })).toEqual({ ok: true });
    expect(slack.standIn.messagesIn('C0INCIDENT').find((m) => m.ts === message.ts)?.unfurls).toEqual({ [url]: card('second') });
  });

  test('attaches by unfurl_id and source as well', async () => {
    const url = `${PANEL}/virtual_machines/43`;
    const { message, event } = await post(url);
    expect(await api('chat.unfurl', { unfurl_id: event!.event.unfurl_id, source: 'conversations_history', unfurls: { [url]: card('by id') } })).toEqual({
      ok: true,
    });
    expect(slack.standIn.messagesIn('C0INCIDENT').find((m) => m.ts === message.ts)?.unfurls).toEqual({ [url]: card('by id') });
  });

  test('refuses what Slack refuses, with its error codes, and attaches nothing', async () => {
    const url = `${PANEL}/virtual_machines/42`;
    const { message } = await post(url);
    const at = { channel: 'C0INCIDENT', ts: message.ts };
    const refusals: [Record<string, unknown>, string][] = [
      [{ unfurls: { [url]: card('x') } }, 'missing_channel'],
      [{ channel: 'C0INCIDENT', unfurls: { [url]: card('x') } }, 'missing_ts'],
      [{ channel: 'C0NOWHERE', ts: message.ts, unfurls: { [url]: card('x') } }, 'cannot_find_channel'],
      [{ channel: 'C0INCIDENT', ts: '1.000001', unfurls: { [url]: card('x') } }, 'cannot_find_message'],
      [{ unfurl_id: 'never-issued', source: 'conversations_history', unfurls: { [url]: card('x') } }, 'cannot_find_message'],
      [{ unfurl_id: 'x', source: 'elsewhere', unfurls: { [url]: card('x') } }, 'invalid_arguments'],
      [at, 'missing_unfurls'],
      [{ ...at, unfurls: [card('x')] }, 'invalid_unfurls_format'],
      [{ ...at, unfurls: { [url]: 'a card' } }, 'invalid_unfurls_format'],
      [{ ...at, unfurls: { [`${PANEL}/virtual_machines/44`]: card('x') } }, 'cannot_unfurl_message'],
      [{ ...at, unfurls: { [url]: card('x'.repeat(3001)) } }, 'cannot_parse_attachment'],
    ];
    for (const [args, error] of refusals) expect([error, await api('chat.unfurl', args)]).toEqual([error, expect.objectContaining({ ok: false, error })]);
    expect(slack.standIn.messagesIn('C0INCIDENT').find((m) => m.ts === message.ts)?.unfurls).toBeUndefined();
    expect(slack.standIn.state.refusals.at(-1)).toMatchObject({ source: 'chat.unfurl', error: 'cannot_parse_attachment', channel: 'C0INCIDENT' });
  });
});
