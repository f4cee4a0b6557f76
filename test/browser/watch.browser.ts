/// <reference lib="dom" />
import { join } from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { request } from 'undici';
import type { SpawnedBot } from '../helpers/spawned-bot';
import { actAs, SCREENSHOTS, useLocalPage } from './local-page-driver';
import { waitFor } from '../helpers/wait';

// Watches: the bot speaks first (docs/product.md), on the local page in a real browser. Otto watches web-1 in
// #incident-42, powers it off from the page's Control panel (sandbox) as someone in the cloud's control panel would,
// and the channel is told, with Snooze buttons; snoozed, powering it on again is not told.

// Local mode reads the account every 5 s (LOCAL_MODE.watchIntervalS, test/config.test.ts); every second here, to keep the test short.
const local = useLocalPage({ VS_WATCH_INTERVAL_S: '1' }, { viewport: { width: 1200, height: 900 }, timeoutMs: 8000 });
let bot: SpawnedBot;
let page: Page;

beforeAll(async () => {
  ({ bot, page } = local);
});

const channelMessages = () => page.getByRole('log').locator('xpath=./article');
const control = () => page.getByRole('region', { name: 'Control panel (sandbox)' });
/** A watch's notice of web-1's power (not the command's answer, nor the snooze's). */
const POWER_NOTICE = /web-1.*is (off|on) \(it was (on|off)\)/;

const as = (person: RegExp) => actAs(page, person);

async function typeCommand(command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
}

const withText = (pattern: RegExp): Locator => channelMessages().filter({ hasText: pattern });

/** Rounds of the watch's poll that read the cloud so far (the bot's vs_chatops_watch_poll_seconds, through the page's /metrics). */
async function pollRounds(): Promise<number> {
  const res = await request(`http://127.0.0.1:${bot.port}/metrics`);
  const text = await res.body.text();
  const count = /^vs_chatops_watch_poll_seconds_count(?:\{[^}]*\})? (\d+)/m.exec(text);
  return count ? Number(count[1]) : 0;
}

/** Waits until the poll has read the cloud `rounds` more times than `from`. */
const roundsAfter = (from: number, rounds: number) =>
  waitFor(`${rounds} rounds of the watch's poll`, async () => ((await pollRounds()) >= from + rounds ? true : undefined), { within: 10_000, every: 100 });

test('watch web-1, power it off from the page’s control panel: the channel is told, with Snooze; snoozed, powering it on is not told', async () => {
  await as(/Otto/);
  await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: '# incident-42' }).click();

  await typeCommand('/vs watch web-1');
  await withText(/now watches.*web-1.*Starting from: it is on, unlocked now/)
    .first()
    .waitFor();
  // At once, before the watch's poll has read anything: the watch starts from the state its answer named.
  // The control panel, as someone in the cloud's control panel: pick web-1, power it off.
  const panel = control();
  await panel.getByRole('combobox', { name: 'Server' }).selectOption({ label: 'web-1 (VS 42)' });
  await panel.getByRole('button', { name: 'Power off' }).click();
  await panel
    .getByRole('status')
    .filter({ hasText: /web-1 \(VS 42\) powered off, from the control panel/ })
    .waitFor();

  // The watch tells the channel, once, with its buttons.
  const notice = withText(/web-1.*is off \(it was on\)/);
  await notice.first().waitFor({ timeout: 10_000 });
  await page.screenshot({ path: join(SCREENSHOTS, 'watch-notice.png') });
  expect(await notice.count()).toBe(1);
  for (const name of ['Snooze 1 h', 'Snooze 4 h', 'Unwatch']) await notice.getByRole('button', { name }).waitFor();

  await notice.getByRole('button', { name: 'Snooze 1 h' }).click();
  await withText(/Snoozed news of .*web-1/)
    .first()
    .waitFor();

  // Powered on again while snoozed: rounds of the poll pass, and nothing is told; then a later answer shows.
  const before = await pollRounds();
  await panel.getByRole('button', { name: 'Power on' }).click();
  await panel
    .getByRole('status')
    .filter({ hasText: /web-1 \(VS 42\) powered on, from the control panel/ })
    .waitFor();
  await roundsAfter(before, 2);
  await typeCommand('/vs watches');
  await withText(/web-1.*snoozed until/)
    .first()
    .waitFor();

  const texts = await channelMessages().allTextContents();
  const snoozed = texts.findIndex((t) => /Snoozed news of .*web-1/.test(t));
  const listed = texts.length - 1 - [...texts].reverse().findIndex((t) => /web-1.*snoozed until/.test(t));
  expect(snoozed).toBeGreaterThan(-1);
  expect(listed).toBeGreaterThan(snoozed);
  expect(texts.slice(snoozed, listed).filter((t) => POWER_NOTICE.test(t))).toEqual([]);
  expect(texts.filter((t) => POWER_NOTICE.test(t))).toHaveLength(1);
});

test('the control panel says so when the sandbox refuses: powering on a server that is on changes nothing', async () => {
  const panel = control();
  await panel.getByRole('combobox', { name: 'Server' }).selectOption({ label: 'web-1 (VS 42)' });
  await panel.getByRole('button', { name: 'Power on' }).click();
  await panel
    .getByRole('status')
    .filter({ hasText: /^Not done: web-1 \(VS 42\): VirtualMachine 42 is already on\.$/ })
    .waitFor();
});
