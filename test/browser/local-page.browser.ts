/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { request } from 'undici';
import { readManifest, startSlackStandIn, type SlackStandIn } from '@vs-chatops/slack-standin';
import type { SpawnedBot } from '../helpers/spawned-bot';
import { actAs, SCREENSHOTS, useLocalPage } from './local-page-driver';

// The local page in a real browser (Debian's chromium, headless), driven the
// way a person does: found by role and accessible name, never by CSS class.
// The bot is started as `npm start` starts it with no Slack variable.

// Local mode keeps its store under ./data/local-mode/ of where it runs: a folder of its own.
// Each person here makes more change attempts in a minute (forms, approval clicks, freezes) than one would at a
// time; the per-person limits have tests of their own (test/slack/user-limits.test.ts).
const local = useLocalPage({ VS_CHANGES_PER_USER_PER_MINUTE: '1000' });
let bot: SpawnedBot;
let page: Page;
let browser: Browser;

beforeAll(async () => {
  ({ bot, page, browser } = local);
});

const messages = () => page.getByRole('log');
/** The channel's own messages: the articles of the log itself, not the replies of a thread open under one of them. */
const channelMessages = () => messages().locator('xpath=./article');
const lastMessage = () => channelMessages().last();
/** The app's Home tab under Apps, and the Home tab's content. */
const homeTab = () => page.getByRole('button', { name: 'vs-chatops (Home)' });
const home = () => page.getByRole('region', { name: 'Home' });

const as = (person: RegExp) => actAs(page, person);

async function inChannel(name: string) {
  await page
    .getByRole('navigation', { name: 'Channels' })
    .getByRole('button', { name: `# ${name}` })
    .click();
}

/** Types a command in the message box and waits for the app's answer. */
async function type(command: string): Promise<Locator> {
  const before = await channelMessages().count();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
  // The command itself shows first (only to its author), then the answer.
  await channelMessages()
    .nth(before + 1)
    .waitFor();
  return lastMessage();
}

/** Types a command that opens a form and returns the form (a dialog named by its title). */
async function openForm(command: string, title: string): Promise<Locator> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.waitFor();
  return dialog;
}

describe('every command', () => {
  beforeAll(async () => {
    await as(/Ada/);
    await inChannel('incident-42');
  });

  test('/vs help shows the usage, only to the person', async () => {
    const answer = await type('/vs help');
    await expectText(answer, /\/vs firewall/);
    await expectText(answer, /Only visible to you/);
  });

  test('/vs firewall 42 renders the rules from their Block Kit, for the channel', async () => {
    const answer = await type('/vs firewall 42');
    await answer.getByRole('heading', { name: 'Firewall rules · VS 42' }).waitFor();
    await expectText(answer, /ACCEPT/);
    expect(await answer.getByText('Only visible to you').count()).toBe(0);
    // mrkdwn: bold and code spans are rendered, not shown as asterisks and backticks.
    expect(await answer.locator('strong').count()).toBeGreaterThan(0);
    expect(await answer.locator('code').count()).toBeGreaterThan(0);
    expect(await answer.textContent()).not.toMatch(/\*ACCEPT\*|`/);
    await page.screenshot({ path: join(SCREENSHOTS, 'firewall.png') });
  });

  test('/vs firewall 42 22 answers "does this traffic reach the server?": who is let in, by which rule, and who is dropped', async () => {
    const answer = await type('/vs firewall 42 22');
    await expectText(answer, /VS 42 · 22\/tcp/);
    await expectText(answer, /accepted from 203\.0\.113\.0\/24 \(rule #1\); dropped for everyone else \(rule #8\)/);
    await page.screenshot({ path: join(SCREENSHOTS, 'firewall-port.png') });
  });

  test.each([
    ['/vs autoscaling 42', /Memory/],
    ['/vs as 42', /CPU/],
    ['/vs templates windows', /Windows/],
    ['/vs whoami', /admin/],
    ['/vs audit 5', /audit|No changes|record/i],
    // The filter applied: the list says whose records it holds, or that none of hers match.
    ['/vs audit 5 @Ada', /records? · @Ada \(admin\) · page \d+ of \d+|No audit record matches: @Ada \(admin\)/],
    ['/vs firewal 42', /Did you mean/],
    ['/vs firewall abc', /id/],
  ])('%s answers', async (command, expected) => {
    await expectText(await type(command), expected);
  });
});

describe('paging', () => {
  test('Next on the summary in the channel shows the next page to the one who clicked; Next on that page replaces it', async () => {
    await as(/Vera/);
    await inChannel('general');
    await expectText(await type('/vs firewall 45'), /page 1 of 15 · rules 1–20 of 300/);
    // That message, where it stands, whatever comes after it.
    const summary = channelMessages().nth((await channelMessages().count()) - 1);
    const count = await messages().getByRole('article').count();
    await summary.getByRole('button', { name: 'Next' }).click();
    // A page of her own: the summary everyone reads is left as it is.
    await expectText(lastMessage(), /page 2 of 15 · rules 21–40 of 300/);
    await expectText(lastMessage(), /Only visible to you/);
    await expectText(summary, /page 1 of 15 · rules 1–20 of 300/);
    expect(await messages().getByRole('article').count()).toBe(count + 1);
    await lastMessage().getByRole('button', { name: 'Next' }).click();
    await expectText(lastMessage(), /page 3 of 15 · rules 41–60 of 300/);
    expect(await messages().getByRole('article').count()).toBe(count + 1);
  });
});

describe('Export CSV', () => {
  test('the whole list goes to the person’s Messages with the app as a file, named and downloadable, whatever the page shown', async () => {
    await as(/Vera/);
    await inChannel('general');
    const summary = await type('/vs firewall 45');
    const before = await messages().getByRole('article').count();
    await summary.getByRole('button', { name: 'Export CSV' }).click();
    await messages().getByRole('article').nth(before).waitFor();
    await expectText(lastMessage(), /Sent the firewall rules of VS 45 as a CSV file to your direct messages with the bot: 300 rules/);
    await expectText(lastMessage(), /Only visible to you/);
    await page.getByRole('button', { name: 'vs-chatops (Messages)' }).click();
    const file = page.getByRole('group', { name: /^File: vs-45-firewall-rules-.*\.csv$/ });
    await file.waitFor();
    await expectText(messages().getByRole('article').last(), /The firewall rules of VS 45: 300 rules, as of/);
    const link = file.getByRole('link', { name: /^vs-45-firewall-rules-.*\.csv$/ });
    // The message box is not there: the app's Messages tab is read-only.
    expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'export-csv.png') });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(await link.textContent());
    const csv = await (await request(`http://127.0.0.1:${bot.port}${new URL(download.url()).pathname}`)).body.text();
    expect(csv.split('\r\n')[0]).toBe(
      'network_interface_id,position,command,protocol,address,port,source_port,destination_ip,enabled,enable_logging,description,id',
    );
    expect(csv.trimEnd().split('\r\n')).toHaveLength(301);
    // Someone else does not see Vera's Messages: their own, empty.
    await as(/Otto/);
    expect(await page.getByRole('group', { name: /^File: / }).count()).toBe(0);
    await inChannel('general');
  });
});

describe('the forms, as the right and the wrong person', () => {
  beforeAll(async () => {
    await inChannel('incident-42');
  });

  test('a viewer asking for the add-disk form is told which role it needs, only them', async () => {
    await as(/Vera/);
    const answer = await type('/vs disk add 42');
    await expectText(answer, /operator/);
    await expectText(answer, /Only visible to you/);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  test('an operator asking for the restore form is told it needs an admin', async () => {
    await as(/Otto/);
    const answer = await type('/vs backup restore 9');
    await expectText(answer, /admin/);
  });

  test('the on-call group member (an operator through the group) adds a disk; a wrong field is shown inline first', async () => {
    await as(/Omar/);
    const dialog = await openForm('/vs disk add 42', 'Add disk · VS 42');
    await dialog.getByRole('textbox', { name: 'Size (GB)' }).fill('20');
    await dialog.getByRole('textbox', { name: /Mount point/ }).fill('/mnt/data');
    await dialog.getByRole('checkbox', { name: 'Swap disk' }).check();
    await dialog.getByRole('button', { name: 'Add disk' }).click();
    const mountPoint = dialog.getByRole('textbox', { name: /Mount point/ });
    await dialog.getByText(/swap disk has no mount point/i).waitFor();
    // The error is attached to its field, and what was typed is kept.
    const describedBy = (await mountPoint.getAttribute('aria-describedby')) ?? '';
    const described = await Promise.all(describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(described.join(' ')).toMatch(/swap disk has no mount point/i);
    expect(await mountPoint.getAttribute('aria-invalid')).toBe('true');
    expect(await mountPoint.inputValue()).toBe('/mnt/data');
    await page.screenshot({ path: join(SCREENSHOTS, 'add-disk-inline-error.png') });
    await dialog.getByRole('checkbox', { name: 'Swap disk' }).uncheck();
    await dialog.getByRole('button', { name: 'Add disk' }).click();
    const outcome = page.getByRole('dialog', { name: 'Add disk' });
    await outcome.getByText(/Scheduled/).waitFor();
    // The outcome can only be closed: nothing of the form is left.
    expect(await outcome.getByRole('button', { name: 'Add disk' }).count()).toBe(0);
    expect(await outcome.getByRole('textbox').count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expectText(lastMessage(), /20 GB/);
  });
});

describe('the power form', () => {
  beforeAll(async () => {
    await inChannel('incident-42');
  });

  test('an operator shuts a server down: the form shows the server as read, its actions, and the channel reads “scheduled”', async () => {
    await as(/Otto/);
    // VS 44 of the sandbox is on, and nothing else here changes it.
    const refused = await type('/vs start 44');
    await expectText(refused, /VS 44 is on: there is nothing to start/);
    const dialog = await openForm('/vs shutdown 44', 'Power · VS 44');
    await expectText(dialog, /VS 44 · bastion · on/);
    const action = dialog.getByRole('combobox', { name: 'Action' });
    expect(await action.locator('option').allTextContents()).toEqual(expect.arrayContaining(['Shut down (graceful)', 'Reboot']));
    expect(await action.locator('option').allTextContents()).not.toContain('Start');
    await dialog.getByRole('textbox', { name: 'Type 44 to confirm' }).fill('44');
    await dialog.getByRole('textbox', { name: /Reason/ }).fill('hung after the deploy');
    // The button names the action the form was opened for.
    await dialog.getByRole('button', { name: 'Shut down' }).click();
    const outcome = page.getByRole('dialog', { name: 'Shut down server' });
    await outcome.getByText(/Scheduled/).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expectText(lastMessage(), /Shut down \(graceful\) of VS 44/);
    await expectText(lastMessage(), /Scheduled|Running|Done/);
  });
});

describe('see before you change: a server’s card, its backups, and a restore with everything in view', () => {
  beforeAll(async () => {
    await as(/Ada/);
    await inChannel('incident-42');
  });

  test('/vs server 42 shows the server at a glance, with buttons to the other views and the forms an admin may open', async () => {
    const card = await type('/vs server 42');
    await card.getByRole('heading', { name: 'VS 42' }).waitFor();
    await expectText(card, /web-1\.prod/);
    // Locked or not: a disk added to it a moment ago may still be building.
    await expectText(card, /on · .*(not locked|locked: (building|formatting) a disk is (pending|running))/);
    await expectText(card, /Memory 4 GB · CPUs 2 · Disk \d+ GB/);
    await expectText(card, /#101 20 GB SSD · web-1 root · primary · mounted at \/ · built/);
    await expectText(card, /Latest backups/);
    await expectText(card, /Latest transactions/);
    for (const name of ['Firewall', 'Autoscaling', 'Backups', 'Add disk', 'Restore backup', 'Reboot server'])
      await card.getByRole('button', { name, exact: true }).waitFor();
    // In words, not markup: bold and code rendered, a Slack date shown as a date.
    expect(await card.textContent()).not.toMatch(/\*on\*|`|<!date/);
    await page.screenshot({ path: join(SCREENSHOTS, 'server-card.png') });
  });

  test('servers by name: web-1 is VS 42; web names two, each with a button, and the one picked is shown; web-9 offers the closest', async () => {
    const card = await type('/vs server web-1');
    await card.getByRole('heading', { name: 'VS 42' }).waitFor();
    await expectText(card, /web-1\.prod/);

    const several = await type('/vs server web');
    await expectText(several, /web names 2 servers\. Which one\?/);
    await several.getByRole('button', { name: 'Use web-1 (VS 42)' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'servers-by-name.png') });
    await several.getByRole('button', { name: 'Use web-2 (VS 47)' }).click();
    await channelMessages().getByRole('heading', { name: 'VS 47' }).last().waitFor();

    await expectText(await type('/vs server web-9'), /No server is named web-9\. Did you mean web-1 \(VS 42\)/);
  });

  test('its Backups button lists the backups, newest first, usable or why not, each usable one with Restore', async () => {
    const card = messages()
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: 'VS 42' }) })
      .last();
    const before = await messages().getByRole('article').count();
    await card.getByRole('button', { name: 'Backups', exact: true }).click();
    await messages().getByRole('article').nth(before).waitFor();
    const list = lastMessage();
    await list.getByRole('heading', { name: 'Backups · VS 42' }).waitFor();
    await expectText(list, /Backup 9 — nightly/);
    await expectText(list, /not usable: marked for deletion/);
    expect(await list.getByRole('button', { name: 'Restore' }).count()).toBe(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'backups.png') });
  });

  test('Restore on a backup opens the form with the server’s usable backups to pick from, that one picked', async () => {
    const list = messages()
      .getByRole('article')
      .filter({ has: page.getByRole('heading', { name: 'Backups · VS 42' }) })
      .last();
    // Newest first: backup 9, then 15, each usable one with its Restore button.
    await list.getByRole('button', { name: 'Restore' }).nth(1).click();
    const dialog = page.getByRole('dialog', { name: 'Restore · VS 42' });
    await dialog.waitFor();
    const picker = dialog.getByRole('combobox', { name: 'Backup' });
    const options = await picker.locator('option').allTextContents();
    expect(options.filter((o) => o.startsWith('#'))).toEqual([
      // How long ago, not a clock: an option cannot hold Slack's date token, which the list above shows in the reader's time zone.
      expect.stringMatching(/^#9 · taken \d+ days ago · 5 GB · incremental · disk 101$/),
      expect.stringMatching(/^#15 · taken \d+ days ago · 4\.8 GB · normal · disk 101$/),
    ]);
    expect(await picker.inputValue()).toBe('15');
    await expectText(dialog, /Restoring overwrites the disk the backup was taken of, on VS 42/);
    await page.screenshot({ path: join(SCREENSHOTS, 'restore-picker.png') });
    await picker.selectOption('9');
    await dialog.getByRole('textbox', { name: /Type the number of the backup you picked/ }).fill('9');
    await dialog.getByRole('textbox', { name: /Reason/ }).fill('rows lost in the 14:00 deploy');
    await dialog.getByRole('button', { name: 'Restore' }).click();
    // Local mode asks a second admin for every restore.
    const outcome = page.getByRole('dialog', { name: 'Restore backup' });
    await outcome.getByText(/Sent for approval in #incident-42/).waitFor();
    await outcome.getByRole('button', { name: 'Close' }).first().click();
    await requestFor(9).waitFor();
    await requestFor(9).getByRole('button', { name: 'Deny' }).waitFor();
    // Taken back, so that it waits for nobody in the tests that follow.
    await requestFor(9).getByRole('button', { name: 'Withdraw' }).click();
    await expectText(requestFor(9), /Withdrawn by @Ada \(admin\)/);
  });

  test('a backup that cannot be used is refused with why before any form opens', async () => {
    await expectText(await type('/vs backup restore 12'), /Backup 12 cannot be restored: it is marked for deletion/);
    await expectText(await type('/vs restore 43'), /VS 43 has no backups, so there is nothing to restore/);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });
});

/** The approval request for `backup`'s restore, as a message of the channel being looked at. */
/** The approval request for `backup`'s restore, as a message of the channel being looked at (with its thread under it). */
const requestFor = (backup: number) =>
  channelMessages()
    // The exact request while it waits; once approved and followed to its end, what it restores and who approved.
    .filter({ hasText: new RegExp(`POST /backups/${backup}/restore\\.json|Restore backup · Backup ${backup}`) })
    .filter({ hasText: /Approval needed|Approved|approved by|Denied|Expired|Withdrawn/ })
    .last();

/** The thread under a message: its replies. */
const threadOf = (message: Locator) => message.getByRole('region', { name: /^Thread: / });

/** How many messages the channel shows, not counting replies in threads. */
const channelMessageCount = () => channelMessages().count();

/** Asks for backup `backup`'s restore through its form, as whoever is chosen; the form says it was sent for approval. */
async function askRestore(backup: number, reason: string): Promise<void> {
  const dialog = await openForm(`/vs backup restore ${backup}`, `Restore backup ${backup}`);
  await dialog.getByRole('textbox', { name: `Type ${backup} to confirm` }).fill(String(backup));
  await dialog.getByRole('textbox', { name: /Reason/ }).fill(reason);
  await dialog.getByRole('button', { name: 'Restore' }).click();
  // The form becomes what happened, in place: nothing changed yet, a second person decides.
  const outcome = page.getByRole('dialog', { name: 'Restore backup' });
  await outcome.getByText(/Sent for approval in #incident-42/).waitFor();
  await outcome.getByRole('button', { name: 'Close' }).first().click();
  await requestFor(backup).waitFor();
}

/** Presses Approve on `where` and confirms it in Slack's confirmation dialog. */
async function approve(where: Locator): Promise<void> {
  await where.getByRole('button', { name: 'Approve' }).click();
  const confirm = page.getByRole('dialog', { name: 'Approve: Restore backup?' });
  await confirm.waitFor();
  await confirm.getByRole('button', { name: 'Approve' }).click();
  await confirm.waitFor({ state: 'hidden' });
}

describe('a second person: a restore waits for another admin’s approval', () => {
  beforeAll(async () => {
    await inChannel('incident-42');
  });

  test('Ada asks for a restore: nothing is changed, and the channel sees who asks, why, until when and the exact request', async () => {
    await as(/Ada/);
    await askRestore(9, 'data corrupted by the deploy');
    const request = requestFor(9);
    await expectText(request, /Approval needed/);
    await expectText(request, /@Ada \(admin\) asks to Restore backup · Backup 9/);
    await expectText(request, /data corrupted by the deploy/);
    await expectText(request, /Open until/);
    await expectText(request, /POST \/backups\/9\/restore\.json/);
    await request.getByRole('button', { name: 'Deny' }).waitFor();
    await page.screenshot({ path: join(SCREENSHOTS, 'approval-request.png') });
  });

  test('Ada cannot approve her own request, nor can Otto, an operator: each is told why, only them', async () => {
    await approve(requestFor(9));
    await expectText(lastMessage(), /you cannot approve or deny your own request/);
    await expectText(lastMessage(), /Only visible to you/);
    await as(/Otto/);
    await approve(requestFor(9));
    await expectText(lastMessage(), /needs the admin role/);
    await expectText(requestFor(9), /Approval needed/);
  });

  test('Bea approves it: the request changes in place to say who approved and how, Ada is told in its thread; the audit channel names both', async () => {
    await as(/Bea/);
    const before = await channelMessageCount();
    await approve(requestFor(9));
    // Scheduled, then followed in place to its end (the page's follower polls every 2 s).
    await expectText(requestFor(9), /Approved by @Bea \(admin\) · scheduled|approved by @Bea \(admin\)/);
    expect(await requestFor(9).getByRole('button', { name: 'Approve' }).count()).toBe(0);
    // Changed in place: no new message in the channel; Ada is told in its thread, with a mention.
    await expectText(threadOf(requestFor(9)), /@Ada \(admin\).*Approved by @Bea \(admin\) · scheduled/);
    expect(await channelMessageCount()).toBe(before);
    await page.screenshot({ path: join(SCREENSHOTS, 'approval-approved.png') });
    await inChannel('vs-audit');
    // The approval is the change's record: Bea's, asked by Ada, scheduled (or further on by the time it is read).
    await expectText(channelMessages().last(), /@Bea \(admin\) · Restore backup · Backup 9 → (scheduled|running|done)/);
    await expectText(channelMessages().last(), /asked by @Ada \(admin\)/);
    await page.screenshot({ path: join(SCREENSHOTS, 'audit-channel.png') });
    await inChannel('incident-42');
  });

  test('Deny asks why in a small form: Ada turns down what Bea asks for, with her reason; the request shows it, Bea is told in its thread', async () => {
    await as(/Bea/);
    await askRestore(11, 'wrong disk, I think');
    await expectText(requestFor(11), /Who may decide: @Ada \(admin\)/);
    await as(/Ada/);
    await requestFor(11).getByRole('button', { name: 'Deny' }).click();
    const form = page.getByRole('dialog', { name: 'Deny request' });
    await form.waitFor();
    await expectText(form, /You are denying this request\. Nothing will be changed\./);
    await form.getByRole('textbox', { name: /^Why/ }).fill('wrong backup: restore 14 instead');
    await page.screenshot({ path: join(SCREENSHOTS, 'approval-deny-reason.png') });
    await form.getByRole('button', { name: 'Deny' }).click();
    await form.waitFor({ state: 'hidden' });
    await expectText(requestFor(11), /Denied by @Ada \(admin\): “wrong backup: restore 14 instead”\. Nothing was changed/);
    expect(await requestFor(11).getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expectText(threadOf(requestFor(11)), /@Bea \(admin\).*Denied by @Ada \(admin\): “wrong backup: restore 14 instead”/);
    await page.screenshot({ path: join(SCREENSHOTS, 'approval-denied-thread.png') });
  });

  test('Withdraw: only the one who asked may take a request back; Ada is refused, only her; Bea withdraws hers and is told in its thread', async () => {
    await as(/Bea/);
    await askRestore(14, 'restore the right disk this time');
    await as(/Ada/);
    await requestFor(14).getByRole('button', { name: 'Withdraw' }).click();
    await expectText(lastMessage(), /Only @Bea \(admin\), who asked for this change, may withdraw it/);
    await expectText(lastMessage(), /Only visible to you/);
    await expectText(requestFor(14), /Approval needed/);
    await as(/Bea/);
    await requestFor(14).getByRole('button', { name: 'Withdraw' }).click();
    await expectText(requestFor(14), /Withdrawn by @Bea \(admin\), who asked for it\. Nothing was changed/);
    expect(await requestFor(14).getByRole('button', { name: 'Withdraw' }).count()).toBe(0);
    await expectText(threadOf(requestFor(14)), /@Bea \(admin\).*Withdrawn by @Bea/);
  });
});

describe('global shortcuts', () => {
  test('the add-disk shortcut asks for the server and the channel, and the result goes to the channel chosen', async () => {
    await as(/Otto/);
    await inChannel('incident-42');
    await page.getByRole('button', { name: 'Shortcuts' }).click();
    await page.getByRole('menuitem', { name: 'Add a disk to a server' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add disk' });
    await dialog.waitFor();
    // The channel defaults to the one being looked at; another is chosen.
    const channel = dialog.getByRole('combobox', { name: 'Post the result in' });
    expect(await channel.locator('option:checked').textContent()).toBe('# incident-42');
    await channel.selectOption({ label: '# general' });
    await dialog.getByRole('textbox', { name: 'Server (VS) id' }).fill('44');
    await dialog.getByRole('textbox', { name: 'Size (GB)' }).fill('15');
    // Nothing else is filled in: the form as it opens is accepted.
    await dialog.getByRole('button', { name: 'Add disk' }).click();
    await page
      .getByRole('dialog', { name: 'Add disk' })
      .getByText(/Scheduled/)
      .waitFor();
    await page.keyboard.press('Escape');
    await inChannel('general');
    await expectText(lastMessage(), /VS 44/);
    await expectText(lastMessage(), /15 GB/);
    await inChannel('incident-42');
  });
});

describe('keyboard only', () => {
  test('the add-disk form can be opened, filled and sent without a mouse', async () => {
    await as(/Otto/);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.focus();
    await page.keyboard.type('/vs disk add 43');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Add disk · VS 43' });
    await dialog.waitFor();
    // Focus starts in the form: Tab through to the size, type, then on to the submit button.
    for (let i = 0; i < 30; i++) {
      const name = await page.evaluate(() => document.activeElement?.id ?? '');
      if (name === 'f-disk_size') break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('30');
    for (let i = 0; i < 30; i++) {
      const name = await page.evaluate(() => document.activeElement?.id ?? '');
      if (name === 'f-mount_point') break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('/mnt/data');
    for (let i = 0; i < 40; i++) {
      const label = await page.evaluate(() => document.activeElement?.textContent ?? '');
      if (label === 'Add disk') break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page
      .getByRole('dialog', { name: 'Add disk' })
      .getByText(/Scheduled/)
      .waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await expectText(lastMessage(), /30 GB/);
    // Focus is back where it was.
    expect(await page.evaluate(() => document.activeElement?.id ?? '')).toBe('message');
  });
});

describe('link unfurls', () => {
  test('the hint names a link of the sandbox’s panel; typed in the message box, it unfurls into the server’s card under the message', async () => {
    await as(/Vera/);
    await inChannel('general');
    const example = await page
      .getByText(/link to a server in the sandbox’s control panel/)
      .locator('code')
      .textContent();
    expect(example).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/virtual_machines\/42$/);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill(`is 443 open on ${example}/firewall_rules ?`);
    await box.press('Enter');
    const card = page.getByRole('region', { name: `Preview of ${example}/firewall_rules` });
    await card.waitFor();
    await expectText(card, /VS 42/);
    await expectText(card, /Firewall: 8 rules on 1 network interface: 6 ACCEPT, 2 DROP/);
    await expectText(card, /Autoscaling: 3 of 6 rules configured/);
    await expectText(card, /\/vs firewall 42/);
    // Under the message it unfurls, from the person who posted it.
    expect(await lastMessage().getByRole('region').count()).toBe(1);
    await expectText(lastMessage(), /Vera/);
    // The card arrives after the message: scrolled to, as Slack does, so that the picture shows it.
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SCREENSHOTS, 'unfurl.png') });
  });
});

describe('workflow steps', () => {
  /** Opens the Workflows panel and picks a step by its title. */
  async function pickStep(title: string): Promise<Locator> {
    await page.getByRole('button', { name: 'Workflows' }).click();
    await page.getByRole('combobox', { name: 'Step', exact: true }).selectOption({ label: title });
    return page.getByRole('log', { name: 'Step runs' });
  }

  test('a read step runs with the inputs filled in and shows its outputs; a bad input is shown on its field first', async () => {
    await as(/Vera/);
    const runs = await pickStep('Does this traffic reach the server?');
    // A server by its name (docs/product.md, Servers by name): the step looks it up.
    await page.getByLabel('Server id').fill('web-1');
    await page.getByLabel('Port').fill('22x');
    await page.getByRole('button', { name: 'Run step' }).click();
    // Workflow Builder's own check: the field says so, nothing is sent.
    await page.getByText('Enter a whole number.').waitFor();
    const field = page.getByLabel('Port');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    // The problem is the field's description, as a form's inline error is.
    const describedBy = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
    const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(descriptions).toContain('Enter a whole number.');
    await page.getByLabel('Port').fill('22');
    await page.getByLabel('Protocol').selectOption({ label: 'TCP' });
    await page.getByRole('button', { name: 'Run step' }).click();
    const run = runs.getByRole('article').first();
    await expectText(run, /Completed/);
    const outputs = run.getByRole('definition');
    await expectText(run.getByLabel('Outputs'), /dropped/);
    await expectText(run.getByLabel('Outputs'), /VS 42 · 22\/tcp: accepted from 203\.0\.113\.0\/24 \(rule #1\); dropped for everyone else \(rule #8\)/);
    expect(await outputs.count()).toBeGreaterThan(2);
    await page.screenshot({ path: join(SCREENSHOTS, 'workflow-read-step.png') });

    // A server the cloud API does not know: the step fails with the words a command would use.
    await pickStep("Summarise a server's firewall");
    await page.getByLabel('Server id').fill('999');
    await page.getByRole('button', { name: 'Run step' }).click();
    await expectText(runs.getByRole('article').first(), /Failed/);
    await expectText(runs.getByRole('article').first(), /VS 999 was not found/);
    await inChannel('incident-42');
  });

  test('a run that ends before the answer to "Run step" reaches the page stays ended: the answer, older, does not draw it running again', async () => {
    await as(/Vera/);
    const runs = await pickStep("Summarise a server's firewall");
    await page.getByLabel('Server id').fill('999');
    // The order a step that fails at once can take: its end, told by the stand-in's events, is on the page before the
    // answer to the run, which says how the run stood when the app acked it (running).
    await page.route('**/local/step', async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { execution: { id: string } & Record<string, unknown> };
      const { execution } = body;
      await expectText(runs.getByRole('article').filter({ hasText: execution.id }), /Failed/);
      const { error: _error, endedAt: _endedAt, ...started } = execution;
      await route.fulfill({ response: answer, json: { ...body, execution: { ...started, state: 'running' } } });
    });
    try {
      await page.getByRole('button', { name: 'Run step' }).click();
      await page.getByRole('status').filter({ hasText: 'Sent to the app' }).waitFor();
      const run = await runs.getByRole('article').first().innerText();
      expect(run).toMatch(/Failed/);
      expect(run).toMatch(/VS 999 was not found/);
    } finally {
      await page.unroute('**/local/step');
    }
    await inChannel('incident-42');
  });

  test('a change step posts its request and changes nothing; one person requests it, another approves it, and its run shows each step', async () => {
    await as(/Omar/);
    const runs = await pickStep('Ask for a disk');
    await page.getByLabel('Server id').fill('42');
    await page.getByLabel('Disk type').selectOption({ label: 'SSD' });
    await page.getByLabel('Size (GB)').fill('20');
    await page.getByLabel('Channel', { exact: true }).selectOption({ label: '# incident-42' });
    await page.getByLabel('Reason', { exact: true }).fill('the data disk is full');
    await page.getByRole('button', { name: 'Run step' }).click();
    const run = runs.getByRole('article').first();
    await expectText(run, /Completed/);
    await expectText(run.getByLabel('Outputs'), /status\s*awaiting_requester$/);
    const posted = run.getByRole('region', { name: 'Message posted in #incident-42' });
    await expectText(posted, /A workflow asks to Add disk · web-1 \(VS 42\)/);
    await expectText(posted, /POST \/virtual_machines\/42\/disks\.json/);
    // Otto (an operator) requests it: the message becomes the approval request, for a second person.
    await as(/Otto/);
    await posted.getByRole('button', { name: 'Request this change' }).click();
    await posted.getByRole('button', { name: 'Approve' }).waitFor();
    await expectText(posted, /@Otto.*asks to Add disk/);
    // Ada (an admin) approves it, through Slack's confirmation dialog.
    await as(/Ada/);
    await posted.getByRole('button', { name: 'Approve' }).click();
    await page
      .getByRole('dialog', { name: /Approve/ })
      .getByRole('button', { name: 'Approve' })
      .click();
    await expectText(posted, /Approved by @Ada/);
    await page.screenshot({ path: join(SCREENSHOTS, 'workflow-change-step.png') });
    // The channel sees the same message, updated in place.
    await inChannel('incident-42');
    await expectText(messages(), /Approved by @Ada/);
  });
});

describe('the Home tab', () => {
  test('as Ada: her role, whether changes are frozen, the forms she may open, and the latest changes', async () => {
    await as(/Ada/);
    await homeTab().click();
    await expectText(home(), /your role is admin/);
    await expectText(home(), /Changes are not frozen/);
    await home().getByRole('button', { name: 'Add a disk to a server' }).waitFor();
    await home().getByRole('button', { name: 'Restore a backup' }).waitFor();
    // Her restore of backup 9 (above), among everyone's changes.
    await home().getByRole('heading', { name: 'Latest changes' }).waitFor();
    await expectText(home(), /Restore backup · Backup 9 → (scheduled|running|done)/);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-tab.png') });
  });

  test('switching person on the Home tab shows theirs: Vera has no form to open and sees only her own changes', async () => {
    await as(/Vera/);
    await expectText(home(), /your role is viewer/);
    await home().getByRole('heading', { name: 'Your latest changes' }).waitFor();
    expect(await home().getByRole('button', { name: 'Restore a backup' }).count()).toBe(0);
    expect(await home().textContent()).not.toMatch(/Backup 9/);
  });

  test('its button opens the form, which asks for the backup and the channel (the Home tab is no conversation)', async () => {
    await as(/Ada/);
    await home().getByRole('button', { name: 'Restore a backup' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore backup' });
    await dialog.getByRole('textbox', { name: 'Backup id', exact: true }).waitFor();
    expect(await dialog.getByRole('combobox', { name: 'Post the result in' }).inputValue()).toBe('');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await inChannel('incident-42');
  });
});

describe('approving from the Home tab', () => {
  test('Bea sees Ada’s request on her Home tab and approves it there: her Home tab is drawn again without it, the message changes in place', async () => {
    await as(/Ada/);
    await inChannel('incident-42');
    await askRestore(10, 'restore the reports volume');
    await as(/Bea/);
    await homeTab().click();
    await home().getByRole('heading', { name: 'Waiting for your approval' }).waitFor();
    await expectText(home(), /@Ada \(admin\) asks to Restore backup · Backup 10/);
    await expectText(home(), /POST \/backups\/10\/restore\.json/);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-tab-approval.png') });
    await approve(home());
    await home().getByRole('heading', { name: 'Waiting for your approval' }).waitFor({ state: 'hidden' });
    await expectText(home(), /Restore backup · Backup 10 → (scheduled|running|done)/);
    await inChannel('incident-42');
    await expectText(requestFor(10), /Approved by @Bea \(admin\) · scheduled|approved by @Bea \(admin\)/);
  });
});

describe('the freeze', () => {
  test('an admin freezes changes: a change is refused with who froze and why, the Home tab says so; unfreezing allows changes again', async () => {
    await as(/Bea/);
    await inChannel('incident-42');
    await expectText(await type('/vs freeze storage maintenance'), /Changes are frozen by @Bea \(admin\)/);
    await as(/Otto/);
    const refused = await type('/vs disk add 42');
    await expectText(refused, /Changes are frozen: @Bea \(admin\) froze them .* because “storage maintenance”/);
    expect(await page.getByRole('dialog').count()).toBe(0);
    await homeTab().click();
    await expectText(home(), /Changes are frozen: @Bea \(admin\) froze them/);
    expect(await home().getByRole('button', { name: 'Add a disk to a server' }).count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-tab-frozen.png') });
    await as(/Bea/);
    await inChannel('incident-42');
    await expectText(await type('/vs unfreeze'), /Changes are allowed again/);
    await as(/Otto/);
    await openForm('/vs disk add 42', 'Add disk · VS 42');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
  });
});

describe('following a change to its end, live', () => {
  // The sandbox runs each change as transactions of a few seconds; local mode polls them every 2 s, so a person sees
  // the message go from scheduled to its end, in place, and a reply in its thread.
  const followed = (title: string | RegExp) => channelMessages().filter({ hasText: title }).last();

  /** Adds a disk through its form and closes the form once it says scheduled; the channel's message that follows it. */
  async function addDisk(vsId: number, size: string, mountPoint: string): Promise<Locator> {
    const dialog = await openForm(`/vs disk add ${vsId}`, `Add disk · VS ${vsId}`);
    await dialog.getByRole('textbox', { name: 'Size (GB)' }).fill(size);
    await dialog.getByRole('textbox', { name: /Mount point/ }).fill(mountPoint);
    await dialog.getByRole('button', { name: 'Add disk' }).click();
    await scheduled('Add disk');
    return followed(new RegExp(`Add disk · [\\w-]+ \\(VS ${vsId}\\)`));
  }

  /** The form's window says the change was scheduled; it is closed. */
  async function scheduled(title: string): Promise<void> {
    await page
      .getByRole('dialog', { name: title })
      .getByText(/Scheduled/)
      .waitFor();
    await page.keyboard.press('Escape');
  }

  beforeAll(async () => {
    await inChannel('incident-42');
  });

  test('a disk add: scheduled, running (its transaction in words), then done in place, and one reply in its thread naming who asked', async () => {
    await as(/Otto/);
    const message = await addDisk(46, '25', '/mnt/archive');
    await expectText(message, /Scheduled: the cloud accepted the change/);
    await expectText(message, /Running · building disk \d+/);
    await expectText(message, /Done · disk \d+ is built and unlocked/);
    await expectText(threadOf(message), /@Otto \(operator\).*Add disk · db-primary \(VS 46\): Done/);
    expect(await threadOf(message).getByRole('article').count()).toBe(1);
    await message.screenshot({ path: join(SCREENSHOTS, 'followed-change.png') });
  });

  test('a reboot, then a restore approved by a second admin: each done in place, the restore’s reply naming both', async () => {
    await as(/Otto/);
    const dialog = await openForm('/vs reboot 45', 'Power · VS 45');
    await dialog.getByRole('textbox', { name: 'Type 45 to confirm' }).fill('45');
    await dialog.getByRole('textbox', { name: /Reason/ }).fill('kernel update');
    await dialog.getByRole('button', { name: 'Reboot' }).click();
    await scheduled('Reboot server');
    const reboot = followed('Reboot server · edge-lb-1 (VS 45)');
    await expectText(reboot, /Running · rebooting VS 45/);
    await expectText(reboot, /Done · VS 45 is on, and unlocked/);
    await expectText(threadOf(reboot), /Reboot server · edge-lb-1 \(VS 45\): Done/);

    await as(/Ada/);
    await askRestore(15, 'the uploads table is corrupt');
    await as(/Bea/);
    await approve(requestFor(15));
    const restore = requestFor(15);
    await expectText(restore, /Done · backup 15 is restored onto disk 101, and the disk is unlocked/);
    await expectText(restore, /asked by @Ada \(admin\) · approved by @Bea \(admin\)/);
    await expectText(threadOf(restore), /@Ada \(admin\) @Bea \(admin\).*Restore backup · Backup 15: Done/);
  });

  test('a change that fails in the cloud ends as failed: why, what now, what it left and where to look, never the cloud’s raw log', async () => {
    await as(/Otto/);
    const message = await addDisk(48, '10', '/mnt/logs');
    await expectText(
      message,
      /Failed in the cloud: building disk \d+ failed\. VS 48 is on and unlocked\. Disk \d+ \(10 GB\) exists but is not built: remove it in the control panel\./,
    );
    await message.getByRole('link', { name: 'transactions of VS 48' }).first().waitFor();
    await expectText(threadOf(message), /Add disk · legacy-app \(VS 48\): Failed in the cloud/);
    expect(await message.textContent()).not.toMatch(/Fatal|lvcreate|DATABASE_URL|s3cr3t|✅/);
  });

  test('a reboot of the failing server is failed with its state now; its link opens the panel; /vs audit failed finds it; the Home tab shows ❌', async () => {
    await as(/Otto/);
    const dialog = await openForm('/vs reboot 48', 'Power · VS 48');
    await dialog.getByRole('textbox', { name: 'Type 48 to confirm' }).fill('48');
    await dialog.getByRole('textbox', { name: /Reason/ }).fill('hung since the deploy');
    await dialog.getByRole('button', { name: 'Reboot' }).click();
    await scheduled('Reboot server');
    const reboot = followed('Reboot server · legacy-app (VS 48)');
    await expectText(reboot, /❌ Failed in the cloud: rebooting VS 48 failed\. VS 48 is on and unlocked\. Its transactions in the control panel say why/);
    expect(await reboot.textContent()).not.toMatch(/✅|succeeded/);
    await expectText(threadOf(reboot), /@Otto \(operator\).*❌ Reboot server · legacy-app \(VS 48\): Failed in the cloud/);
    await reboot.screenshot({ path: join(SCREENSHOTS, 'failed-change.png') });

    // The link opens the sandbox's page of the server's transactions, as a control panel's would: no credentials asked.
    const href = await reboot.getByRole('link', { name: 'transactions of VS 48' }).first().getAttribute('href');
    expect(href).toMatch(/\/virtual_machines\/48\/transactions$/);
    const panel = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    try {
      const opened = await panel.goto(href!);
      expect(opened?.status()).toBe(200);
      await panel.getByRole('heading', { name: /\(VS 48\)$/ }).waitFor();
      await panel
        .getByRole('row', { name: /reboot_virtual_machine failed/ })
        .first()
        .waitFor();
      await panel.screenshot({ path: join(SCREENSHOTS, 'panel-transactions.png') });
    } finally {
      await panel.close();
    }

    // `/vs audit failed` finds it, with ❌ and in words; the API's 201 is no headline.
    await as(/Ada/);
    const audit = await type('/vs audit failed');
    await expectText(audit, /❌ [^→]*@Otto \(operator\) · Reboot server · legacy-app \(VS 48\) → failed in the cloud while rebooting the server/);
    expect(await audit.textContent()).not.toMatch(/✅|succeeded/);
    await page.screenshot({ path: join(SCREENSHOTS, 'audit-failed.png') });

    // The Home tab shows it failed, ❌.
    await homeTab().click();
    await expectText(home(), /❌ [^→]*Reboot server · legacy-app \(VS 48\) → failed in the cloud while rebooting the server/);
    await page.screenshot({ path: join(SCREENSHOTS, 'home-tab-failed.png') });
    await inChannel('incident-42');
  });
});

describe('the renderer, on a stand-in alone (no bot): what the app posts is shown as Slack shows it', () => {
  const TOKEN = 'xoxb-browser-test';
  let standIn: SlackStandIn;
  let alone: Page;
  const api = async (method: string, args: unknown) => {
    const res = await request(`${standIn.apiUrl}${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(args),
    });
    return (await res.body.json()) as { ok: boolean; error?: string; view?: { id: string } };
  };

  beforeAll(async () => {
    standIn = await startSlackStandIn({ botToken: TOKEN, page: true });
    alone = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    await alone.goto(`${standIn.origin}/`);
    await alone.getByRole('textbox', { name: 'Message' }).waitFor();
  });

  afterAll(async () => {
    await alone?.close();
    await standIn?.close();
  });

  test('mrkdwn, mentions, emoji, an ephemeral message, a confirmation dialog, and an unsupported block named', async () => {
    expect(
      await api('chat.postMessage', {
        channel: 'C0INCIDENT',
        text: 'fallback',
        blocks: [
          {
            type: 'section',
            text: {
              type: 'mrkdwn',
              text: '*bold* _italic_ ~gone~ `code` <https://example.com|a link> <@U0ADMIN> <#C0AUDIT> <!subteam^S0ONCALL> :white_check_mark: &lt;escaped&gt;',
            },
          },
          {
            type: 'actions',
            elements: [
              {
                type: 'button',
                action_id: 'danger',
                style: 'danger',
                text: { type: 'plain_text', text: 'Delete' },
                confirm: {
                  title: { type: 'plain_text', text: 'Really?' },
                  text: { type: 'mrkdwn', text: 'It cannot be undone.' },
                  confirm: { type: 'plain_text', text: 'Yes, delete' },
                  deny: { type: 'plain_text', text: 'Keep it' },
                },
              },
            ],
          },
          {
            type: 'video',
            title: { type: 'plain_text', text: 'v' },
            video_url: 'https://example.com/v',
            thumbnail_url: 'https://example.com/t.png',
            alt_text: 'v',
          },
        ],
      }),
    ).toMatchObject({ ok: true });
    expect(await api('chat.postEphemeral', { channel: 'C0INCIDENT', user: 'U0ADMIN', text: 'for Ada only' })).toMatchObject({ ok: true });
    const log = alone.getByRole('log');
    const message = log.getByRole('article').filter({ hasText: 'bold' });
    await message.waitFor();
    expect(await message.locator('strong').first().textContent()).toBe('bold');
    expect(await message.locator('em').first().textContent()).toBe('italic');
    expect(await message.locator('s').first().textContent()).toBe('gone');
    expect(await message.getByRole('link', { name: 'a link' }).getAttribute('href')).toBe('https://example.com');
    await message.getByText('@Ada (admin)').waitFor();
    await message.getByRole('button', { name: '#vs-audit' }).waitFor();
    await message.getByText('@oncall-infra').waitFor();
    await message.getByRole('img', { name: 'white check mark' }).waitFor();
    await message.getByText('<escaped>').waitFor();
    await message.getByText('unsupported block: video').waitFor();
    await log.getByRole('article').filter({ hasText: 'for Ada only' }).getByText('Only visible to you').waitFor();

    await message.getByRole('button', { name: 'Delete' }).click();
    const confirm = alone.getByRole('dialog', { name: 'Really?' });
    await confirm.getByText('It cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await confirm.waitFor({ state: 'hidden' });
    // Kept: nothing was sent to the app.
    expect(standIn.state.deliveries).toHaveLength(0);
  });

  test('rich text: preformatted text exactly as sent (never read as mrkdwn), styled runs, mentions and lists', async () => {
    const body = '{"backup": {"target_disk": 101}}\n*not bold* <@U0ADMIN> &amp;';
    expect(
      await api('chat.postMessage', {
        channel: 'C0INCIDENT',
        text: 'rich',
        blocks: [
          {
            type: 'rich_text',
            elements: [
              {
                type: 'rich_text_section',
                elements: [
                  { type: 'text', text: 'Asked by ' },
                  { type: 'user', user_id: 'U0ADMIN' },
                  { type: 'text', text: ' for ', style: { bold: true } },
                  { type: 'text', text: 'backup 9', style: { code: true } },
                ],
              },
              { type: 'rich_text_preformatted', elements: [{ type: 'text', text: `POST /backups/9/restore.json\n\n${body}` }] },
              { type: 'rich_text_list', style: 'ordered', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'first step' }] }] },
            ],
          },
        ],
      }),
    ).toMatchObject({ ok: true });
    const message = alone.getByRole('log').getByRole('article').filter({ hasText: 'first step' });
    await message.waitFor();
    expect(await message.locator('pre').textContent()).toBe(`POST /backups/9/restore.json\n\n${body}`);
    await message.getByText('@Ada (admin)').waitFor();
    expect(await message.locator('strong').textContent()).toBe(' for ');
    expect(await message.locator('code').first().textContent()).toBe('backup 9');
    expect(await message.getByRole('listitem').textContent()).toBe('first step');
  });

  test('a modal is updated live: "working…" then the outcome, in the same dialog', async () => {
    const { triggerId } = await standIn.command('U0ADMIN', 'C0INCIDENT', 'backup restore 9');
    const modal = (text: string) => ({
      type: 'modal',
      title: { type: 'plain_text', text: 'Restore backup' },
      close: { type: 'plain_text', text: 'Close' },
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
    const opened = await api('views.open', { trigger_id: triggerId, view: modal(':hourglass_flowing_sand: Working on it') });
    const dialog = alone.getByRole('dialog', { name: 'Restore backup' });
    await dialog.getByText('Working on it').waitFor();
    expect(await api('views.update', { view_id: opened.view!.id, view: modal(':white_check_mark: Done') })).toMatchObject({ ok: true });
    await dialog.getByText('Done').waitFor();
    expect(await dialog.getByText('Working on it').count()).toBe(0);
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await dialog.waitFor({ state: 'hidden' });
  });

  test('what Slack would refuse is shown to the developer, with Slack’s error code', async () => {
    const refused = await api('chat.postMessage', { channel: 'C0INCIDENT', text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) });
    expect(refused).toMatchObject({ ok: false, error: 'invalid_blocks' });
    const alert = alone.getByRole('alert').filter({ hasText: 'invalid_blocks' });
    await alert.waitFor();
    await alert.getByText('[ERROR] must be less than 51 items [json-pointer:/blocks]').waitFor();
  });

  test('the shortcut menu is the app manifest’s: none without one, and a shortcut added to manifest.yml is offered', async () => {
    expect(await alone.getByRole('button', { name: 'Shortcuts' }).isVisible()).toBe(false);
    const manifest = readFileSync(join(__dirname, '..', '..', 'manifest.yml'), 'utf8').replace(
      '  shortcuts:\n',
      '  shortcuts:\n    - name: Reboot a server\n      type: global\n      callback_id: reboot_shortcut\n      description: Opens the reboot form\n',
    );
    standIn.setManifest(readManifest(manifest));
    await alone.reload();
    await alone.getByRole('button', { name: 'Shortcuts' }).click();
    const menu = alone.getByRole('menu', { name: 'Shortcuts' });
    await menu.waitFor();
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      'Reboot a server',
      'Add a disk to a server',
      'Restore a backup',
      'Start, stop or reboot a server',
      'Take a backup',
      'Add a firewall rule',
      'Remove a firewall rule',
    ]);
    await alone.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden' });
  });
});

async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout: 8000 });
}
