import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { useHarness, type Harness } from '../../../helpers/app-harness';
import { CHANNEL } from '../../../helpers/drive';
import { waitFor } from '../../../helpers/wait';
import { entry as storeEntry } from '../../../store/contract/entries';

// docs/product.md, Long lists: "Paging a list posted in a channel shows the next page to the person who clicked,
// without changing the message everyone else reads". People on the stand-in type and click; the channel is read back
// as each of them sees it.

const ENV = { VS_ADMINS: 'UADMIN' };

const textOf = (m: ChannelMessage) => JSON.stringify(m.blocks ?? []);
const botMessages = (h: Harness, since: number) => h.slack.messagesIn(CHANNEL).filter((m) => m.kind === 'bot' && Number(m.ts) > since);

async function seen(h: Harness, what: string, find: (m: ChannelMessage) => boolean, since: number): Promise<ChannelMessage> {
  return waitFor(what, () => botMessages(h, since).find(find), {
    within: 5000,
    detail: () => `messages: ${JSON.stringify(botMessages(h, since).map((m) => [m.ephemeralTo ?? 'all', m.text.slice(0, 60)]))}`,
  });
}

describe('paging a list', () => {
  const h = useHarness({ env: ENV });

  test('Next on the firewall rules in the channel shows page 2 to the one who clicked; the channel keeps page 1; Next on their page replaces it', async () => {
    const since = Number(h.slack.messagesIn(CHANNEL).at(-1)?.ts ?? 0);
    await h.slack.command('UVERA', CHANNEL, 'firewall 45');
    const shared = await seen(h, 'page 1 in the channel', (m) => !m.ephemeralTo && textOf(m).includes('rules 1–20 of 300'), since);
    await h.slack.click('UOTTO', { channel: CHANNEL, ts: shared.ts }, 'firewall_page_next');
    const mine = await seen(h, 'page 2, for the one who clicked', (m) => m.ephemeralTo === 'UOTTO' && textOf(m).includes('rules 21–40 of 300'), since);
    await h.slack.click('UOTTO', { channel: CHANNEL, ts: mine.ts }, 'firewall_page_next');
    await seen(h, 'page 3 in place of page 2', (m) => m.ts === mine.ts && m.replaced === true && textOf(m).includes('rules 41–60 of 300'), since);
    // Everyone else still reads page 1, as it was posted; the clicker has one page of their own.
    const forAll = botMessages(h, since).filter((m) => !m.ephemeralTo);
    expect(forAll.map((m) => [m.ts, m.replaced ?? false, textOf(m).includes('rules 1–20 of 300')])).toEqual([[shared.ts, false, true]]);
    expect(botMessages(h, since).filter((m) => m.ephemeralTo === 'UOTTO')).toHaveLength(1);
    expect(botMessages(h, since).filter((m) => m.ephemeralTo === 'UVERA')).toEqual([]);
  });

  test('Next on `/vs audit`, which only its reader sees, replaces it in place', async () => {
    for (let i = 0; i < 12; i++)
      await h.store.audit.record(storeEntry({ at: new Date().toISOString(), channelId: CHANNEL, userId: 'UOTTO', outcome: 'denied' }));
    const since = Number(h.slack.messagesIn(CHANNEL).at(-1)?.ts ?? 0);
    await h.slack.command('UADMIN', CHANNEL, 'audit 20');
    const list = await seen(h, 'the audit list', (m) => m.ephemeralTo === 'UADMIN' && textOf(m).includes('page 1 of 2'), since);
    await h.slack.click('UADMIN', { channel: CHANNEL, ts: list.ts }, 'audit_page_next');
    await seen(h, 'page 2 in place', (m) => m.ts === list.ts && m.replaced === true && textOf(m).includes('page 2 of 2'), since);
    expect(botMessages(h, since)).toHaveLength(1);
  });
});
