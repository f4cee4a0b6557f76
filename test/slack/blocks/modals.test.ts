import type { InputBlock, KnownBlock, ModalView } from '@slack/types';
import fc from 'fast-check';
import { backupRestoreModal, diskAddModal, fieldErrorsToBlockErrors, viewStateToValues } from '../../../src/slack/blocks/modals';
import { statusModal } from '../../../src/slack/blocks/status-modal';
import { validateDiskForm } from '../../../src/changes';
import { input, stateOf } from '../../helpers/payloads';
import { allTexts, hostileText, modalLimitProblems } from './slack-limits';

const inputs = (v: ModalView) => v.blocks.filter((b): b is InputBlock => b.type === 'input');
const byId = (v: ModalView, id: string) => inputs(v).find((b) => b.block_id === id);
const element = (v: ModalView, id: string) => byId(v, id)?.element as unknown as Record<string, unknown> | undefined;
const visible = (v: ModalView) => allTexts(v.blocks as KnownBlock[]).join('\n');

const API_FIELDS = ['disk_type', 'disk_size', 'label', 'mount_point', 'file_system', 'min_iops', 'primary', 'is_swap', 'hot_attach', 'add_to_linux_fstab', 'add_to_freebsd_fstab', 'require_format_disk'];
const FLAGS = ['primary', 'is_swap', 'hot_attach', 'add_to_linux_fstab', 'add_to_freebsd_fstab', 'require_format_disk'];

describe('diskAddModal', () => {
  const view = diskAddModal({ vsId: 42, channelId: 'CINC', privateMetadata: '{"vsId":42}', sandbox: false });

  test('is the disk_add modal with every API parameter as an input whose block_id and action_id are its name', () => {
    expect(view).toMatchObject({ type: 'modal', callback_id: 'disk_add', private_metadata: '{"vsId":42}', submit: { text: 'Add disk' } });
    for (const field of API_FIELDS) {
      const block = byId(view, field);
      expect(block).toBeDefined();
      expect((block!.element as { action_id?: string }).action_id).toBe(field);
    }
    expect(byId(view, 'vs_id')).toBeUndefined();
    expect(byId(view, 'channel')).toBeUndefined();
    expect(visible(view)).toContain('VS 42');
    expect(modalLimitProblems(view)).toEqual([]);
  });

  test('elements: select HDD/SSD (SSD first), whole GB at least 1, mount point at most 256, ext3/ext4', () => {
    expect(element(view, 'disk_type')).toMatchObject({ type: 'static_select', initial_option: { value: 'SSD' } });
    expect((element(view, 'disk_type')!.options as { value: string }[]).map((o) => o.value).sort()).toEqual(['HDD', 'SSD']);
    expect(element(view, 'disk_size')).toMatchObject({ type: 'number_input', is_decimal_allowed: false, min_value: '1' });
    expect(byId(view, 'disk_size')!.optional).toBe(false);
    expect(byId(view, 'disk_size')!.hint?.text).toMatch(/GB|gigabytes/i);
    expect(element(view, 'mount_point')).toMatchObject({ type: 'plain_text_input', max_length: 256 });
    expect(byId(view, 'mount_point')).toMatchObject({ optional: true });
    expect(byId(view, 'mount_point')!.hint?.text).toMatch(/\/mnt\/data.*swap/);
    expect((element(view, 'file_system')!.options as { value: string }[]).map((o) => o.value).sort()).toEqual(['ext3', 'ext4']);
    expect(byId(view, 'file_system')).toMatchObject({ optional: true });
    expect(byId(view, 'file_system')!.hint?.text).toMatch(/format/i);
    expect(element(view, 'min_iops')).toMatchObject({ type: 'number_input', is_decimal_allowed: false });
    expect(byId(view, 'min_iops')!.hint?.text).toMatch(/storage backend/i);
    expect(byId(view, 'label')).toMatchObject({ optional: true });
  });

  test('each flag is an optional checkbox with one option "true" and a description; defaults checked where sensible', () => {
    for (const flag of FLAGS) {
      const e = element(view, flag)!;
      expect(e.type).toBe('checkboxes');
      expect(byId(view, flag)!.optional).toBe(true);
      const options = e.options as { value: string; description?: { text: string } }[];
      expect(options).toHaveLength(1);
      expect(options[0]!.value).toBe('true');
      expect(options[0]!.description?.text).toBeTruthy();
    }
    const checked = FLAGS.filter((f) => ((element(view, f)!.initial_options as unknown[] | undefined) ?? []).length > 0);
    expect(checked.sort()).toEqual(['add_to_linux_fstab', 'hot_attach', 'require_format_disk']);
    expect(JSON.stringify(element(view, 'hot_attach'))).toMatch(/without stopping the server/i);
  });

  test('from the global shortcut it asks for the server id and the channel (defaulting to the current one)', () => {
    const v = diskAddModal({ privateMetadata: '{}', sandbox: false });
    expect(element(v, 'vs_id')).toMatchObject({ action_id: 'vs_id' });
    expect(element(v, 'channel')).toMatchObject({ type: 'conversations_select', action_id: 'channel', default_to_current_conversation: true });
    expect(modalLimitProblems(v)).toEqual([]);
  });

  test('initial values fill the form', () => {
    const v = diskAddModal({ vsId: 1, channelId: 'C1', privateMetadata: '', sandbox: false, values: { disk_type: 'HDD', disk_size: 50, label: 'logs', mount_point: '/var/log', file_system: 'ext4', hot_attach: false, is_swap: true } });
    expect(element(v, 'disk_type')).toMatchObject({ initial_option: { value: 'HDD' } });
    expect(element(v, 'disk_size')).toMatchObject({ initial_value: '50' });
    expect(element(v, 'label')).toMatchObject({ initial_value: 'logs' });
    expect(element(v, 'mount_point')).toMatchObject({ initial_value: '/var/log' });
    expect(element(v, 'file_system')).toMatchObject({ initial_option: { value: 'ext4' } });
    expect(element(v, 'hot_attach')!.initial_options).toBeUndefined();
    expect(element(v, 'is_swap')!.initial_options).toHaveLength(1);
  });

  test('the sandbox notice appears only on the sandbox', () => {
    expect(visible(diskAddModal({ vsId: 1, channelId: 'C1', privateMetadata: '', sandbox: true }))).toMatch(/sandbox data/);
    expect(visible(view)).not.toMatch(/sandbox/);
  });

  test('any server id and initial values keep the modal within Slack limits', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }), hostileText, hostileText, fc.boolean(), (vsId, label, mountPoint, sandbox) => {
        const v = diskAddModal({ vsId, channelId: vsId === undefined ? undefined : 'C1', privateMetadata: '{}', sandbox, values: { label, mount_point: mountPoint } });
        expect(modalLimitProblems(v)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

describe('backupRestoreModal', () => {
  test('warns plainly, asks to type the backup id, takes an optional reason of at most 500', () => {
    const v = backupRestoreModal({ backupId: 9, channelId: 'C1', privateMetadata: '{"backupId":9}', sandbox: false });
    expect(v).toMatchObject({ type: 'modal', callback_id: 'backup_restore', submit: { text: 'Restore' } });
    expect(visible(v)).toMatch(/overwrites the disk/i);
    expect(visible(v)).toMatch(/cannot be undone/);
    expect(byId(v, 'confirm')!.label.text).toBe('Type 9 to confirm');
    expect(byId(v, 'confirm')!.optional).toBe(false);
    expect(element(v, 'reason')).toMatchObject({ action_id: 'reason', multiline: true, max_length: 500 });
    expect(byId(v, 'reason')!.optional).toBe(true);
    expect(byId(v, 'backup_id')).toBeUndefined();
    expect(modalLimitProblems(v)).toEqual([]);
  });

  test('from the global shortcut it asks for the backup id and the channel', () => {
    const v = backupRestoreModal({ privateMetadata: '{}', sandbox: true });
    expect(element(v, 'backup_id')).toMatchObject({ action_id: 'backup_id' });
    expect(element(v, 'channel')).toMatchObject({ type: 'conversations_select', default_to_current_conversation: true });
    expect(visible(v)).toMatch(/sandbox data/);
    expect(modalLimitProblems(v)).toEqual([]);
  });

  test('titles stay within 24 characters for any id', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (id) => {
        expect(backupRestoreModal({ backupId: id, privateMetadata: '', sandbox: false }).title.text.length).toBeLessThanOrEqual(24);
        expect(diskAddModal({ vsId: id, privateMetadata: '', sandbox: false }).title.text.length).toBeLessThanOrEqual(24);
      }),
      { numRuns: 50 },
    );
  });
});

describe('viewStateToValues', () => {
  test('flattens a submission into { action_id: value }', () => {
    const values = viewStateToValues(
      stateOf({
        disk_type: input.select('SSD'),
        disk_size: input.number('20'),
        label: input.text('data'),
        mount_point: input.text(null),
        file_system: input.select(null),
        hot_attach: input.check(true),
        is_swap: input.check(false),
        channel: input.channel('CSHORT'),
      }),
    );
    expect(values).toEqual({ disk_type: 'SSD', disk_size: '20', label: 'data', mount_point: undefined, file_system: undefined, hot_attach: true, is_swap: false, channel: 'CSHORT' });
  });

  test('what the add-disk form submits by default validates', () => {
    const v = diskAddModal({ vsId: 1, channelId: 'C1', privateMetadata: '', sandbox: false });
    const state: Record<string, ReturnType<typeof input.text>> = {};
    for (const b of inputs(v)) {
      const e = b.element as unknown as Record<string, unknown>;
      const id = String(e.action_id);
      if (e.type === 'checkboxes') state[id] = input.check(Array.isArray(e.initial_options) && e.initial_options.length > 0);
      else if (e.type === 'static_select') state[id] = input.select((e.initial_option as { value: string } | undefined)?.value ?? null);
      else if (e.type === 'number_input') state[id] = input.number(id === 'disk_size' ? '10' : null);
      else state[id] = input.text(null);
    }
    const result = validateDiskForm(viewStateToValues(stateOf(state)));
    expect(result).toMatchObject({ ok: true, params: { disk_type: 'SSD', disk_size: 10, hot_attach: true, add_to_linux_fstab: true, require_format_disk: true } });
  });

  test('tolerates junk', () => {
    expect(viewStateToValues(null)).toEqual({});
    expect(viewStateToValues({ a: null, b: { x: 3 }, c: { y: { type: 'mystery' } } })).toEqual({ y: undefined });
  });
});

describe('fieldErrorsToBlockErrors', () => {
  test('keys stay the field names (block ids) and long messages are cut', () => {
    const errors = fieldErrorsToBlockErrors({ disk_size: 'must be at least 1', mount_point: 'x'.repeat(5000) });
    expect(errors.disk_size).toBe('must be at least 1');
    expect(errors.mount_point!.length).toBeLessThanOrEqual(300);
    expect(errors.mount_point).toMatch(/…$/);
  });
});

describe('statusModal', () => {
  test('escapes API text once: already-escaped result text is not escaped twice; channel links survive', () => {
    const v = statusModal({ title: 'Add disk', text: ':x: The cloud API said: <https://evil|click> & <!here>. Label data &lt;disk&gt; &amp; more, in <#CINC>', sandbox: false });
    const text = allTexts(v.blocks as KnownBlock[]).join('\n');
    expect(text).toContain('&lt;https://evil|click&gt; &amp; &lt;!here&gt;');
    expect(text).toContain('data &lt;disk&gt; &amp; more');
    expect(text).toContain('<#CINC>');
    expect(modalLimitProblems(v)).toEqual([]);
  });

  test('keeps limits for any text', () => {
    fc.assert(
      fc.property(hostileText, hostileText, fc.boolean(), (title, text, sandbox) => {
        const v = statusModal({ title: title || 'x', text, sandbox });
        expect(modalLimitProblems(v)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});
