import type { ModalView } from '@slack/types';
import { backupRestoreModal, diskAddModal, fieldErrorsToBlockErrors, viewStateToValues } from '../../../src/slack/blocks/modals';
import { statusModal } from '../../../src/slack/blocks/status-modal';
import { CHANGE_FORMS, changesOf, FORMS } from '../../../src/slack/blocks/change-forms';
import { CHANGE_ACTIONS, targetFieldOf } from '../../../src/changes';
import { validateDiskForm } from '../../../src/changes/disk-form';
import { input as stateInput, stateOf } from '../../helpers/payloads';
import { modalViolations } from './limits';
import { SANDBOX_NOTICE } from './fixtures';

type Block = {
  type: string;
  block_id?: string;
  optional?: boolean;
  label?: { text: string };
  text?: { text: string };
  elements?: { text: string }[];
  element?: Record<string, unknown> & { action_id?: string; type?: string };
};

const blocksOf = (v: ModalView) => v.blocks as unknown as Block[];
const inputs = (v: ModalView) => blocksOf(v).filter((b) => b.type === 'input');
const inputIds = (v: ModalView) => inputs(v).map((b) => b.block_id);
const input = (v: ModalView, id: string) => inputs(v).find((b) => b.block_id === id)!;
const allText = (v: ModalView) => JSON.stringify(v.blocks);

const DISK_FIELDS = [
  'disk_type',
  'disk_size',
  'label',
  'mount_point',
  'primary',
  'is_swap',
  'hot_attach',
  'add_to_linux_fstab',
  'add_to_freebsd_fstab',
  'require_format_disk',
  'file_system',
  'min_iops',
];

describe('add-disk modal', () => {
  const fromCommand = diskAddModal({ vsId: 42, channelId: 'C0INCIDENT', privateMetadata: '{"vsId":42}', sandbox: false });
  const fromShortcut = diskAddModal({ privateMetadata: '{}', sandbox: false });

  test('submits under callback id disk_add, with the metadata it was given', () => {
    expect(fromCommand.callback_id).toBe('disk_add');
    expect(fromCommand.private_metadata).toBe('{"vsId":42}');
    expect(fromCommand.submit?.text).toBe('Add disk');
  });

  test('has one input per API parameter of docs/cloud-api.md (Add a disk), block_id = action_id = parameter name', () => {
    expect(inputIds(fromCommand).sort()).toEqual([...DISK_FIELDS].sort());
    for (const b of inputs(fromCommand)) expect(b.element?.action_id).toBe(b.block_id);
  });

  test('opened from /vs disk add 42 it names the server and asks for neither server nor channel', () => {
    expect(fromCommand.title.text).toBe('Add disk · VS 42');
    expect(allText(fromCommand)).toContain('Add a disk to *VS 42*');
    expect(inputIds(fromCommand)).not.toContain('vs_id');
    expect(inputIds(fromCommand)).not.toContain('channel');
  });

  test('opened from the shortcut it asks for the server id and the channel first', () => {
    expect(inputIds(fromShortcut).slice(0, 2)).toEqual(['vs_id', 'channel']);
    expect(input(fromShortcut, 'vs_id').element).toMatchObject({ type: 'plain_text_input', action_id: 'vs_id' });
    expect(input(fromShortcut, 'channel').element).toMatchObject({ type: 'conversations_select', action_id: 'channel', default_to_current_conversation: true });
    expect(fromShortcut.title.text).toBe('Add disk');
  });

  test('disk type is a choice of SSD and HDD; size is a whole number of at least 1 GB and required', () => {
    expect(input(fromCommand, 'disk_type').element).toMatchObject({ type: 'static_select', options: [{ value: 'SSD' }, { value: 'HDD' }] });
    expect(input(fromCommand, 'disk_size').element).toMatchObject({ type: 'number_input', is_decimal_allowed: false, min_value: '1' });
    expect(input(fromCommand, 'disk_size').optional).toBe(false);
  });

  test('mount point accepts at most 256 characters; file system offers ext3 and ext4', () => {
    expect(input(fromCommand, 'mount_point').element).toMatchObject({ type: 'plain_text_input', max_length: 256 });
    const fs = input(fromCommand, 'file_system').element as { options: { value: string }[] };
    expect(fs.options.map((o) => o.value).sort()).toEqual(['ext3', 'ext4']);
  });

  test('the yes/no parameters are checkboxes', () => {
    for (const id of ['primary', 'is_swap', 'hot_attach', 'add_to_linux_fstab', 'add_to_freebsd_fstab', 'require_format_disk']) {
      expect(input(fromCommand, id).element?.type).toBe('checkboxes');
    }
  });
});

describe('restore-backup modal', () => {
  const fromCommand = backupRestoreModal({ backupId: 9, channelId: 'C0INCIDENT', privateMetadata: '{"backupId":9}', sandbox: false, now: 0 });
  const fromShortcut = backupRestoreModal({ privateMetadata: '{}', sandbox: false, now: 0 });

  test('submits under callback id backup_restore', () => {
    expect(fromCommand.callback_id).toBe('backup_restore');
    expect(fromCommand.private_metadata).toBe('{"backupId":9}');
    expect(fromCommand.submit?.text).toBe('Restore');
  });

  test('warns plainly that restoring overwrites the disk', () => {
    const warning = blocksOf(fromCommand).find((b) => b.type === 'section')!.text!.text;
    expect(warning).toContain('Restoring overwrites the disk');
    expect(warning).toContain('backup *9*');
    expect(warning).toContain('cannot be undone');
    expect(blocksOf(fromShortcut).some((b) => b.type === 'section' && b.text!.text.includes('Restoring overwrites the disk'))).toBe(true);
  });

  test('asks to type the backup id again (confirm) and for a reason, both required', () => {
    expect(inputIds(fromCommand)).toEqual(['confirm', 'reason']);
    expect(input(fromCommand, 'confirm').label?.text).toBe('Type 9 to confirm');
    expect(input(fromCommand, 'confirm').optional).toBe(false);
    expect(input(fromCommand, 'reason').optional).toBe(false);
    for (const b of inputs(fromCommand)) expect(b.element?.action_id).toBe(b.block_id);
  });

  test('a server with more usable backups than a select takes: the newest 100, the one chosen kept, and how to reach older ones', () => {
    const DAY = 86_400_000;
    const backups = Array.from({ length: 150 }, (_, i) => ({
      id: 1000 - i,
      built: true,
      built_at: new Date(Date.UTC(2026, 10, 1) - i * DAY).toISOString(),
      disk_id: 101,
      backup_size: 1024,
    }));
    const picker = (chosen?: number) =>
      backupRestoreModal({
        channelId: 'C1',
        privateMetadata: '{}',
        sandbox: false,
        now: Date.UTC(2026, 10, 2),
        pick: { vsId: 42, backups: backups, ...(chosen ? { chosen } : {}) },
      });
    const values = (v: ModalView) => (input(v, 'backup_id').element as unknown as { options: { value: string }[] }).options.map((o) => o.value);
    const newest = picker();
    expect(modalViolations(newest as never)).toEqual([]);
    expect(values(newest)).toEqual(backups.slice(0, 100).map((b) => String(b.id)));
    expect(JSON.stringify(newest.blocks)).toContain('The newest 100 of 150 are offered; for an older one, `/vs backup restore <backup_id>`.');
    // A Restore button of an older backup: that one is offered, and picked.
    const older = picker(870);
    expect(modalViolations(older as never)).toEqual([]);
    expect(values(older)).toHaveLength(100);
    expect(values(older).at(-1)).toBe('870');
    expect((input(older, 'backup_id').element as unknown as { initial_option?: { value: string } }).initial_option?.value).toBe('870');
  });

  test('opened from the shortcut it asks for the backup id and the channel too', () => {
    expect(inputIds(fromShortcut)).toEqual(['backup_id', 'channel', 'confirm', 'reason']);
    for (const b of inputs(fromShortcut)) expect(b.element?.action_id).toBe(b.block_id);
    expect(fromShortcut.title.text).toBe('Restore backup');
  });
});

// What holds for every form of the table of change forms, from the command (with a target and a channel) and from the shortcut.
describe.each(FORMS.map((form) => [form.callbackId, form] as const))('the %s form', (_callbackId, form) => {
  const fromCommand = form.modal({ targetId: 9, channelId: 'C0INCIDENT', privateMetadata: '{}', sandbox: false, now: 0 });
  const fromShortcut = form.modal({ privateMetadata: '{}', sandbox: false, now: 0 });

  test.each([1, 9, 42, 99_999, 123_456_789, 9_007_199_254_740_991])('the title stays within 24 characters for target %p', (targetId) => {
    const v = form.modal({ targetId, channelId: 'C1', privateMetadata: '', sandbox: true, now: 0 });
    expect(v.title.text.length).toBeLessThanOrEqual(24);
    expect(modalViolations(v as never)).toEqual([]);
  });

  test('both variants are valid for Slack', () => {
    expect(modalViolations(fromCommand as never)).toEqual([]);
    expect(modalViolations(fromShortcut as never)).toEqual([]);
  });

  test('the sandbox notice is shown only on the sandbox', () => {
    expect(allText(form.modal({ targetId: 9, channelId: 'C1', privateMetadata: '', sandbox: true, now: 0 }))).toContain(SANDBOX_NOTICE);
    expect(allText(fromCommand)).not.toContain(SANDBOX_NOTICE);
  });

  test('the input that carries messages about the whole form is in both variants, and the shortcut asks for the target', () => {
    expect(inputIds(fromCommand)).toContain(form.formErrorBlock);
    expect(inputIds(fromShortcut)).toContain(form.formErrorBlock);
    for (const action of changesOf(form)) expect(inputIds(fromShortcut)).toContain(targetFieldOf(action));
    expect(fromShortcut.callback_id).toBe(form.callbackId);
    expect(fromCommand.callback_id).toBe(form.callbackId);
  });
});

test("every change has its form, and the forms' callback ids are docs/product.md's", () => {
  expect(CHANGE_ACTIONS.every((action) => FORMS.includes(CHANGE_FORMS[action].form))).toBe(true);
  expect(FORMS.map((form) => form.callbackId)).toEqual(['disk_add', 'backup_restore', 'vs_power', 'backup_take', 'firewall_add', 'firewall_remove']);
});

describe('reading a submitted form', () => {
  // Shaped like Slack's view_submission view.state.values for the add-disk form opened from the shortcut.
  const state = {
    vs_id: { vs_id: { type: 'plain_text_input', value: ' 42 ' } },
    channel: { channel: { type: 'conversations_select', selected_conversation: 'C0INCIDENT' } },
    disk_type: { disk_type: { type: 'static_select', selected_option: { text: { type: 'plain_text', text: 'HDD', emoji: true }, value: 'HDD' } } },
    disk_size: { disk_size: { type: 'number_input', value: '20' } },
    label: { label: { type: 'plain_text_input', value: null } },
    mount_point: { mount_point: { type: 'plain_text_input', value: '/mnt/data' } },
    require_format_disk: {
      require_format_disk: { type: 'checkboxes', selected_options: [{ text: { type: 'plain_text', text: 'Format the disk' }, value: 'true' }] },
    },
    file_system: { file_system: { type: 'static_select', selected_option: null } },
    add_to_linux_fstab: { add_to_linux_fstab: { type: 'checkboxes', selected_options: [] } },
    primary: { primary: { type: 'checkboxes', selected_options: null } },
    min_iops: { min_iops: { type: 'number_input', value: null } },
  };

  test('flattens every input to its action id: text and numbers as typed, selects to their value, checkboxes to booleans', () => {
    expect(viewStateToValues(state)).toEqual({
      vs_id: ' 42 ',
      channel: 'C0INCIDENT',
      disk_type: 'HDD',
      disk_size: '20',
      label: undefined,
      mount_point: '/mnt/data',
      require_format_disk: true,
      file_system: undefined,
      add_to_linux_fstab: false,
      primary: false,
      min_iops: undefined,
    });
  });

  test('a channel picked with channels_select is read too, and an unpicked one is undefined', () => {
    expect(viewStateToValues({ c: { channel: { type: 'channels_select', selected_channel: 'C9' } } })).toEqual({ channel: 'C9' });
    expect(viewStateToValues({ c: { channel: { type: 'conversations_select', selected_conversation: null } } })).toEqual({ channel: undefined });
  });

  test('a restore form with a multiline reason keeps the text as typed', () => {
    const values = viewStateToValues({
      confirm: { confirm: { type: 'plain_text_input', value: '9' } },
      reason: { reason: { type: 'plain_text_input', value: 'corrupt\n<!channel>' } },
    });
    expect(values).toEqual({ confirm: '9', reason: 'corrupt\n<!channel>' });
  });

  test.each([undefined, null, 'state', 42, [], { a: null }, { a: 'x' }, { a: { b: null } }, { a: { b: 'text' } }])(
    'a malformed state %p gives no values rather than throwing',
    (bad) => {
      expect(() => viewStateToValues(bad)).not.toThrow();
      expect(Object.values(viewStateToValues(bad)).filter((v) => v !== undefined)).toEqual([]);
    },
  );
});

describe('field errors shown on the form', () => {
  test('keep the field names as block ids so Slack puts each message under its input', () => {
    expect(fieldErrorsToBlockErrors({ disk_size: 'must be at least 1', mount_point: 'must be an absolute path' })).toEqual({
      disk_size: 'must be at least 1',
      mount_point: 'must be an absolute path',
    });
  });

  test('cut long messages to what Slack accepts', () => {
    const out = fieldErrorsToBlockErrors({ label: 'x'.repeat(1000) });
    expect(out.label!.length).toBeLessThanOrEqual(300);
    expect(out.label!.endsWith('…')).toBe(true);
  });

  test('no errors gives an empty object', () => {
    expect(fieldErrorsToBlockErrors({})).toEqual({});
  });
});

describe('status modal', () => {
  test('shows the outcome with a Close button, title cut to 24 characters', () => {
    const v = statusModal({ title: 'Restore backup 9007199254740991', mrkdwn: ':white_check_mark: Done.', sandbox: false });
    expect(v.title.text.length).toBeLessThanOrEqual(24);
    expect(v.close?.text).toBe('Close');
    expect(v.submit).toBeUndefined();
    expect(JSON.stringify(v.blocks)).toContain('Done.');
    expect(modalViolations(v as never)).toEqual([]);
  });

  test('long text stays within a section and the sandbox notice appears only on the sandbox', () => {
    const v = statusModal({ title: 'Add disk', mrkdwn: 'x'.repeat(10_000), sandbox: true });
    expect(modalViolations(v as never)).toEqual([]);
    expect(JSON.stringify(v.blocks)).toContain(SANDBOX_NOTICE);
    expect(JSON.stringify(statusModal({ title: 'Add disk', mrkdwn: 'ok', sandbox: false }).blocks)).not.toContain(SANDBOX_NOTICE);
  });
});

describe('the add-disk form as it opens', () => {
  test('submits values that the changes door accepts with only its size typed: no fstab line asks for a mount point it does not have', () => {
    const v = diskAddModal({ vsId: 1, channelId: 'C1', privateMetadata: '', sandbox: false });
    const state: Record<string, ReturnType<typeof stateInput.text>> = {};
    for (const b of inputs(v)) {
      const e = b.element!;
      const id = String(e.action_id);
      if (e.type === 'checkboxes') state[id] = stateInput.check(Array.isArray(e.initial_options) && e.initial_options.length > 0);
      else if (e.type === 'static_select') state[id] = stateInput.select((e.initial_option as { value: string } | undefined)?.value ?? null);
      else if (e.type === 'number_input') state[id] = stateInput.number(id === 'disk_size' ? '10' : null);
      else state[id] = stateInput.text(null);
    }
    const result = validateDiskForm(viewStateToValues(stateOf(state)));
    expect(result).toEqual({
      ok: true,
      params: {
        disk_type: 'SSD',
        disk_size: 10,
        primary: false,
        is_swap: false,
        hot_attach: true,
        add_to_linux_fstab: false,
        add_to_freebsd_fstab: false,
        require_format_disk: true,
      },
    });
  });
});
