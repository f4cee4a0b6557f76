/// <reference lib="dom" />
import { join } from 'node:path';
import { type Locator, type Page } from 'playwright-core';
import { actAs, SCREENSHOTS, useLocalPage } from './local-page-driver';

// More of the control panel (docs/product.md), on the local page in a real browser: Otto, an operator in
// #incident-42, asks the port question, blocks an address with `/vs firewall block`, reads in the form what the
// rule would do given web-1's rules as they are (first match in position order, the new rule at the end), sends
// it, and the change is followed to done (the rule stored, then the rules applied: update_firewall); the result
// answers the port question for the rule just added, and so does `/vs firewall` afterwards. Then he takes a backup
// of a disk picked in the form, followed to done with the backup's size.
//
// web-1 (VS 42) of the sandbox: #3 ACCEPTs everyone on 443/tcp and #8 DROPs all other TCP; no rule decides UDP 53
// from 203.0.113.5. So a DROP of 203.0.113.5 on 443/tcp added at the end cannot take effect, and one on 53/udp does.

const local = useLocalPage({ VS_CHANGES_PER_USER_PER_MINUTE: '1000' }, { timeoutMs: 8000 });
let page: Page;

beforeAll(async () => {
  ({ page } = local);
  await as(/Otto/);
  await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: '# incident-42' }).click();
});

/** The channel's own messages: the articles of the log itself, not the replies of a thread open under one of them. */
const channelMessages = () => page.getByRole('log').locator('xpath=./article');
const lastMessage = () => channelMessages().last();

const as = (person: RegExp) => actAs(page, person);

async function expectText(locator: Locator, pattern: RegExp, timeout = 8000): Promise<void> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout });
}

/** Types a command in the message box and waits for the app's answer (the command shows first, to its author). */
async function type(command: string): Promise<Locator> {
  const before = await channelMessages().count();
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
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

/** Sends the form with `button`, reads "Scheduled" in its outcome (titled `outcome`), closes it; the change's message. */
async function send(form: Locator, button: string, outcome: string, heading: RegExp): Promise<Locator> {
  await form.getByRole('button', { name: button }).click();
  const answer = page.getByRole('dialog', { name: outcome });
  await answer.getByText(/Scheduled/).waitFor();
  // The outcome can only be closed: nothing of the form is left.
  expect(await answer.getByRole('textbox').count()).toBe(0);
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'hidden' });
  return channelMessages().filter({ hasText: heading }).last();
}

describe('a firewall rule, said before it is sent and answered after', () => {
  test('DROP 203.0.113.5 on 443/tcp: the form says rule #3 decides first; sent anyway, the result and the port question still say accepted by #3', async () => {
    const before = await type('/vs firewall web-1 443');
    await expectText(before, /VS 42 · 443\/tcp: accepted for everyone \(rule #3\)/);

    const form = await openForm('/vs firewall block web-1 203.0.113.5 443/tcp', 'Firewall rule · VS 42');
    // Prefilled from the command, the one network interface chosen for you.
    expect(await form.getByLabel('Command').inputValue()).toBe('DROP');
    expect(await form.getByLabel(/^Address/).inputValue()).toBe('203.0.113.5');
    expect(await form.getByLabel(/^Port/).inputValue()).toBe('443');
    expect(await form.getByLabel('Protocol').inputValue()).toBe('TCP');
    await expectText(form, /DROP 203\.0\.113\.5 on 443\/tcp would not take effect: rule #3 \(ACCEPT anyone on 443\/tcp\) decides first/);
    await page.screenshot({ path: join(SCREENSHOTS, 'firewall-block-preview.png') });
    await form.getByLabel(/^Reason/).fill('scanner on the web port');

    const change = await send(form, 'Add rule', 'Add firewall rule', /Add firewall rule · web-1 \(VS 42\)/);
    await expectText(change, /DROP 203\.0\.113\.5 on port 443\/tcp/);
    await expectText(change, /Done/, 20_000);
    // The result read the rules again: what the preview said came true.
    await expectText(change, /port 443\/tcp from 203\.0\.113\.5 is still accepted: a rule above the new one decides first/);
    expect(await change.textContent()).not.toMatch(/is now/);

    const after = await type('/vs firewall web-1 443 from 203.0.113.5');
    await expectText(after, /VS 42 · 443\/tcp from 203\.0\.113\.5: accepted \(rule #3\)/);
  });

  test('DROP 203.0.113.5 on 53/udp: the form says it takes effect; followed to done, the result and `/vs firewall` say it is dropped by it', async () => {
    const before = await type('/vs firewall web-1 53/udp from 203.0.113.5');
    await expectText(before, /VS 42 · 53\/udp from 203\.0\.113\.5: no rule decides/);

    const form = await openForm('/vs firewall block web-1 203.0.113.5 53/udp', 'Firewall rule · VS 42');
    expect(await form.getByLabel('Protocol').inputValue()).toBe('UDP');
    await expectText(form, /DROP 203\.0\.113\.5 on 53\/udp would take effect: no rule before it decides that traffic/);
    await form.getByLabel(/^Reason/).fill('scanner hitting DNS');

    const change = await send(form, 'Add rule', 'Add firewall rule', /DROP 203\.0\.113\.5 on port 53\/udp/);
    await expectText(change, /Done · the rules are applied; port 53\/udp from 203\.0\.113\.5 is now dropped/, 20_000);
    const ruleId = /Firewall rule (\d+) on VS 42/.exec((await change.textContent()) ?? '')?.[1];
    expect(ruleId).toBeDefined();
    // The audit trail has the reason; the thread tells Otto.
    await expectText(change, /Reason given by @Otto \(operator\): “scanner hitting DNS”/);
    await page.screenshot({ path: join(SCREENSHOTS, 'firewall-block-done.png') });

    const after = await type('/vs firewall web-1 53/udp from 203.0.113.5');
    await expectText(after, /VS 42 · 53\/udp from 203\.0\.113\.5: dropped \(rule #\d+\)/);
    await expectText(after, new RegExp(`DROP UDP from 203\\.0\\.113\\.5 to port 53 · id ${ruleId}`));
  });
});

describe('a backup taken now', () => {
  test('of a disk picked in the form, followed to done with its size', async () => {
    const form = await openForm('/vs backup take web-1', 'Backup · VS 42');
    const disk = form.getByLabel('Disk');
    // Only built disks are offered.
    expect(await disk.locator('option').allTextContents()).toEqual(['Choose…', '#101 · 20 GB · web-1 root · primary', '#102 · 2 GB · web-1 swap · swap']);
    await disk.selectOption({ label: '#101 · 20 GB · web-1 root · primary' });
    await form.getByLabel(/^Note/).fill('before the schema migration');
    await form.getByLabel(/^Reason/).fill('a restore point before the migration');

    const change = await send(form, 'Take backup', 'Take backup', /Take backup · web-1 \(VS 42\)/);
    await expectText(change, /disk 101/i);
    await expectText(change, /Done · backup \d+ is built: [\d.,]+ (GB|MB|kB)/, 20_000);
    await expectText(change, /Note: before the schema migration/);
  });
});
