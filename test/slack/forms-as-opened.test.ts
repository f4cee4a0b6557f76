import type { SlackStandIn } from '@vs-chatops/slack-standin';
import { FORMS } from '../../src/slack/blocks/change-forms';
import { COMMANDS } from '../../src/slack/listeners/commands';
import { useHarness, type Harness } from '../helpers/app-harness';
import { CHANNEL } from '../helpers/drive';
import { emptyRequired, enteredAsOpened, inputsOf, type Entered } from '../helpers/forms';
import { waitFor } from '../helpers/wait';

// docs/product.md, One outcome: "A form submitted as it opens, with only its required fields filled, is accepted (its
// defaults never contradict each other), and its submit button names the action". Every form, opened through the real
// app by each command that opens one and by its global shortcut, is submitted by a person on the stand-in (which checks
// what Slack checks before sending) with its defaults untouched and only the inputs Slack requires filled in: the
// change is scheduled, or sent for approval, never refused on a field.

const ENV = { VS_ADMINS: 'UADMIN,UADMIN2', VS_OPERATORS: 'UOPER', VS_APPROVALS: 'backup_restore' };

/**
 * Each command that opens a form, on a target of the sandbox its change fits (a start needs a server that is off), and
 * the button that submits it.
 */
const BY_COMMAND: Record<string, { text: string; submit: string }> = {
  disk_add: { text: 'disk add 42', submit: 'Add disk' },
  backup_restore: { text: 'backup restore 9', submit: 'Restore' },
  restore: { text: 'restore 42', submit: 'Restore' },
  power_start: { text: 'start 43', submit: 'Start' },
  power_shutdown: { text: 'shutdown 42', submit: 'Shut down' },
  power_reboot: { text: 'reboot 42', submit: 'Reboot' },
  power_stop: { text: 'stop 42', submit: 'Force stop' },
  backup_take: { text: 'backup take 42', submit: 'Take backup' },
  firewall_remove: { text: 'firewall remove 42 17', submit: 'Remove rule' },
  firewall_block: { text: 'firewall block 42 198.51.100.5 8080', submit: 'Add rule' },
  firewall_allow: { text: 'firewall allow 42 198.51.100.0/24 8443', submit: 'Add rule' },
};

/**
 * Each form's global shortcut (it asks for the target and the channel), and its button: the power form's names no action yet.
 * A form that shows what its values will do (`effectFirst`) shows it once the server is named, and sends when submitted again.
 */
const BY_SHORTCUT: Record<string, { submit: string; effectFirst?: RegExp }> = {
  disk_add_shortcut: { submit: 'Add disk' },
  backup_restore_shortcut: { submit: 'Restore' },
  power_shortcut: { submit: 'Send power action' },
  backup_take_shortcut: { submit: 'Take backup' },
  firewall_add_shortcut: {
    submit: 'Add rule',
    effectFirst: /on every port\/tcp would not take effect: rule #8 \(DROP anyone on every port\/tcp\) decides first/,
  },
  firewall_remove_shortcut: { submit: 'Remove rule' },
};

type Element = { type?: string; options?: { value: string }[] };

/**
 * What a person types into an input Slack requires, by block_id: a target and a channel where the form asks for them,
 * a size, a reason, the first option of a menu with nothing chosen, and the id the form asks to be typed again.
 */
function typed(blockId: string, element: Element, label: string, entered: Entered): string {
  switch (blockId) {
    case 'vs_id':
      return '42';
    case 'backup_id':
      return element.type === 'static_select' ? element.options![0]!.value : '9';
    case 'disk_id':
      // Server 42's root disk, built.
      return element.type === 'static_select' ? element.options![0]!.value : '101';
    case 'network_interface_id':
      // Server 42's one interface.
      return element.type === 'static_select' ? element.options![0]!.value : '3';
    case 'command':
      // From the shortcut nothing is chosen; an ACCEPT of everything cuts nobody off (a DROP of it asks for more).
      return 'ACCEPT';
    case 'rule_id':
      // Server 42's rule 17 (DROP 3306).
      return '17';
    case 'channel':
      return CHANNEL;
    case 'disk_size':
      return '10';
    case 'reason':
      return 'filled in as the form asks';
    case 'power_action':
      // From the shortcut nothing is chosen; server 42 is on, so a reboot fits.
      return 'reboot';
    case 'confirm': {
      const id = /Type (\d+) to confirm/.exec(label)?.[1] ?? entered.rule_id ?? entered.backup_id ?? entered.vs_id;
      if (typeof id !== 'string') throw new Error(`no id to type again for "${label}"`);
      return id;
    }
    default:
      throw new Error(`the form requires ${blockId}, which this test does not know how to fill in: a required field without a default?`);
  }
}

/** Waits for a form opened for `user` after `before` (the view they had), and returns it. */
async function openedFor(h: Harness, user: string, before: string | undefined): Promise<NonNullable<ReturnType<SlackStandIn['viewOf']>>> {
  return waitFor(
    `a form opened for ${user}`,
    () => {
      const view = h.slack.viewOf(user);
      return view && view.id !== before ? view : undefined;
    },
    {
      within: 5000,
      detail: () =>
        `answers instead: ${JSON.stringify(
          h.slack
            .messagesIn(CHANNEL, user)
            .slice(-2)
            .map((m) => m.text),
        )}`,
    },
  );
}

/** Submits the form as it opened, only its required inputs filled; returns what its window says once the bot answered. */
async function submitAsOpened(h: Harness, user: string, opened: NonNullable<ReturnType<SlackStandIn['viewOf']>>, submit: string): Promise<string> {
  const view = opened.view as { submit?: { text: string }; blocks?: unknown };
  expect(view.submit?.text).toBe(submit);
  const entered = enteredAsOpened(view, opened.channel);
  // One at a time: the confirmation takes the id chosen before it.
  for (const input of emptyRequired(view, entered)) entered[input.block_id!] = typed(input.block_id!, input.element ?? {}, input.label?.text ?? '', entered);
  const outcome = await h.slack.submit(user, opened.id, entered);
  expect(outcome).toMatchObject({ outcome: expect.stringMatching(/^(updated|closed)$/) });
  return waitFor(
    'the outcome in the form’s window',
    () => {
      const text = JSON.stringify(h.slack.viewOf(user)?.view.blocks ?? []);
      return /Scheduled|Sent for approval|:x:|:warning:|:no_entry:/.test(text) ? text : undefined;
    },
    { within: 5000 },
  );
}

describe('every form, submitted as it opens with only its required fields filled', () => {
  const h = useHarness({ env: ENV });

  test('the table below names every command that opens a form, and every form’s shortcut', () => {
    expect(Object.keys(BY_COMMAND).sort()).toEqual(
      COMMANDS.filter((row) => 'opens' in row)
        .map((row) => row.kind)
        .sort(),
    );
    expect(Object.keys(BY_SHORTCUT).sort()).toEqual(FORMS.map((form) => form.shortcut.callbackId).sort());
  });

  test.each(Object.entries(BY_COMMAND))('opened by /vs %s: accepted, its button naming the action', async (_kind, { text, submit }) => {
    const before = h.slack.viewOf('UADMIN')?.id;
    await h.slack.command('UADMIN', CHANNEL, text);
    const opened = await openedFor(h, 'UADMIN', before);
    const said = await submitAsOpened(h, 'UADMIN', opened, submit);
    expect(said).toMatch(/Scheduled|Sent for approval/);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UADMIN', outcome: expect.stringMatching(/^(scheduled|running|requested)$/) });
  });

  test.each(Object.entries(BY_SHORTCUT))(
    'opened by the shortcut %s: it asks for the target and the channel, then accepts',
    async (callbackId, { submit, effectFirst }) => {
      const before = h.slack.viewOf('UADMIN')?.id;
      await h.slack.shortcut('UADMIN', callbackId, CHANNEL);
      const opened = await openedFor(h, 'UADMIN', before);
      expect(inputsOf(opened.view).map((b) => b.block_id)).toEqual(expect.arrayContaining(['channel']));
      let said = await submitAsOpened(h, 'UADMIN', opened, submit);
      if (effectFirst) {
        expect(said).toMatch(effectFirst);
        said = await submitAsOpened(h, 'UADMIN', h.slack.viewOf('UADMIN')!, submit);
      }
      expect(said).toMatch(/Scheduled|Sent for approval/);
      expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UADMIN', outcome: expect.stringMatching(/^(scheduled|running|requested)$/) });
    },
  );
});
