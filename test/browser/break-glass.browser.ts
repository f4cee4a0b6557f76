/// <reference lib="dom" />
import { join } from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { actAs, SCREENSHOTS, useLocalPage } from './local-page-driver';

// Break glass and the incident's timeline on the local page, in a real browser, found by role and accessible name:
// local mode with a reboot waiting for a second person (VS_APPROVALS), its PagerDuty stand-in on. Otto breaks glass,
// his reboot runs at once, flagged; Ada reviews it from her Home tab; the PagerDuty panel (reached by keyboard) lists
// the change event. The README's tour shows these screenshots (`npm run screenshots` writes them).

const local = useLocalPage({ VS_APPROVALS: 'backup_restore,power_reboot', VS_CHANGES_PER_USER_PER_MINUTE: '1000' }, { timeoutMs: 8000 });
let page: Page;

beforeAll(async () => {
  ({ page } = local);
});

const channelMessages = () => page.getByRole('log', { name: undefined }).locator('xpath=./article');
const home = () => page.getByRole('region', { name: 'Home' });

const as = (person: RegExp) => actAs(page, person);

async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout: 10_000 });
}

async function typeCommand(command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
}

test('Otto breaks glass: the channel hears it, mentioning who would have approved; his reboot runs at once, flagged for review', async () => {
  await as(/Otto/);
  await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: '# incident-42' }).click();
  await typeCommand('/vs breakglass db-primary down, nobody awake to approve');
  await expectText(channelMessages(), /Break glass: @Otto \(operator\) opened it until/);
  await expectText(channelMessages(), /@Ada \(admin\) @Bea \(admin\): you would have been asked to approve/);

  await typeCommand('/vs reboot 42');
  const dialog = page.getByRole('dialog', { name: 'Power · VS 42' });
  await dialog.waitFor();
  await dialog.getByRole('combobox', { name: /Action/ }).selectOption({ label: 'Reboot' });
  await dialog.getByRole('textbox', { name: 'Type 42 to confirm' }).fill('42');
  await dialog.getByRole('textbox', { name: /Reason/ }).fill('kernel hung on web-1');
  await dialog.getByRole('button', { name: 'Reboot' }).click();
  // The form turns into its outcome, titled by the change.
  await page
    .getByRole('dialog', { name: 'Reboot server' })
    .getByText(/Scheduled/)
    .waitFor();
  await page.keyboard.press('Escape');
  await expectText(channelMessages(), /@Otto \(operator\) made this change to web-1 \(VS 42\) under break glass/);
  await channelMessages().last().getByRole('button', { name: 'Acknowledge' }).waitFor();
  await expectText(channelMessages(), /Done · VS 42 is on, and unlocked/);
  await page.screenshot({ path: join(SCREENSHOTS, 'break-glass.png') });
});

test('Ada reviews it on her Home tab: the open window, the change waiting for review, and Acknowledge behind a confirmation', async () => {
  await as(/Ada/);
  await page.getByRole('button', { name: 'vs-chatops (Home)' }).click();
  await expectText(home(), /Break glass open/);
  await expectText(home(), /Made under break glass, waiting for review \(1\)/);
  await page.screenshot({ path: join(SCREENSHOTS, 'break-glass-review.png') });
  await home().getByRole('button', { name: 'Acknowledge' }).click();
  const confirm = page.getByRole('dialog', { name: 'Acknowledge this change?' });
  await confirm.waitFor();
  await confirm.getByRole('button', { name: 'Acknowledge' }).click();
  await expectText(page.getByRole('dialog', { name: 'Break glass' }), /You acknowledged @Otto \(operator\)'s change to web-1 \(VS 42\)/);
  await page.keyboard.press('Escape');
  await home()
    .getByText(/waiting for review/)
    .waitFor({ state: 'hidden' });
});

test('the PagerDuty panel, reached by keyboard, lists the change event of the reboot, named by its summary', async () => {
  const tab = page.getByRole('button', { name: 'PagerDuty (change events)' });
  await tab.focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('region', { name: 'PagerDuty change events' });
  await panel.waitFor();
  const events = panel.getByRole('log', { name: 'Change events' });
  const event = events.getByRole('article', { name: /^web-1 \(VS 42\): reboot done — asked by Otto \(operator\), under break glass/ });
  await event.waitFor({ timeout: 15_000 });
  await event.getByRole('link', { name: 'The change in Slack' }).waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'pagerduty-timeline.png') });
});
