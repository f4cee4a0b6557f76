import type { SlackStandIn } from '@vs-chatops/slack-standin';
import type { FormValues } from '../../src/changes/disk-form';
import { input, type StateValue } from './payloads';

// The forms tests submit, written once: a complete, valid add-disk form, as
// the change door reads it and as Slack sends it; and any form as a person on
// the stand-in submits it as it opened.

/** A complete, valid add-disk form as the Slack side flattens it for the change door (sizes as typed text, checkboxes as booleans). */
export const goodDiskForm = {
  disk_type: 'SSD',
  disk_size: '20',
  label: 'data',
  mount_point: '/mnt/data',
  file_system: 'ext4',
  primary: false,
  is_swap: false,
  hot_attach: true,
  add_to_linux_fstab: true,
  add_to_freebsd_fstab: false,
  require_format_disk: true,
} as const satisfies FormValues;

/** The add-disk inputs by kind: the rest are text, and booleans are checkboxes. */
const SELECTS = new Set(['disk_type', 'file_system']);
const NUMBERS = new Set(['disk_size', 'min_iops']);

/** Flat add-disk values as Slack sends them in view.state.values' entries (pass them to stateOf or viewSubmission's fields). */
export function diskInputs(values: FormValues): Record<string, StateValue> {
  const entry = (field: string, value: string | boolean | undefined): StateValue => {
    if (typeof value === 'boolean') return input.check(value);
    const v = value ?? null;
    if (SELECTS.has(field)) return input.select(v);
    return NUMBERS.has(field) ? input.number(v) : input.text(v);
  };
  return Object.fromEntries(Object.entries(values).map(([field, value]) => [field, entry(field, value)]));
}

/** goodDiskForm as a person submits it in the add-disk modal (min IOPS left empty). */
export const goodDisk: Record<string, StateValue> = diskInputs({ ...goodDiskForm, min_iops: undefined });

/** What a person enters in a modal on the stand-in, by block_id (its `submit`'s values). */
export type Entered = Parameters<SlackStandIn['submit']>[2];

type InputElement = {
  type?: string;
  initial_value?: string;
  initial_option?: { value: string };
  initial_options?: { value: string }[];
  initial_conversation?: string;
  default_to_current_conversation?: boolean;
};
type InputBlock = { type: string; block_id?: string; optional?: boolean; label?: { text: string }; element?: InputElement };

/** The input blocks of a view as the bot opened it. */
export function inputsOf(view: { blocks?: unknown }): InputBlock[] {
  return ((view.blocks ?? []) as InputBlock[]).filter((b) => b.type === 'input' && b.block_id !== undefined);
}

/**
 * What a person sends who submits a view as it opened, touching nothing: each input's initial value (text, number,
 * option, checked options, conversation) by block_id, and the conversation it was opened from (`channel`) where a
 * conversations select defaults to it, as Slack fills them in.
 */
export function enteredAsOpened(view: { blocks?: unknown }, channel?: string): Entered {
  const entered: Entered = {};
  for (const b of inputsOf(view)) {
    const e = b.element ?? {};
    const value =
      e.initial_options?.map((o) => o.value) ??
      e.initial_option?.value ??
      e.initial_value ??
      e.initial_conversation ??
      (e.default_to_current_conversation ? channel : undefined);
    if (value !== undefined) entered[b.block_id!] = value;
  }
  return entered;
}

/** The inputs Slack requires that are still empty in `entered`, by block_id: what a person must fill in before Slack sends the form. */
export function emptyRequired(view: { blocks?: unknown }, entered: Entered): InputBlock[] {
  const empty = (v: Entered[string]) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
  return inputsOf(view).filter((b) => b.optional !== true && empty(entered[b.block_id!]));
}
