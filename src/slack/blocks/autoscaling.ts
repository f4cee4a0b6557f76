import type { KnownBlock } from '@slack/types';
import type { AutoscalingResource, AutoscalingSlot, ScaleType } from '../../cloud/schemas';
import { fallback, header, section, withSandbox, type Rendered } from './mrkdwn';

/** The three resources, in the API's order, by the names messages give them. */
export const RESOURCES: readonly { resource: AutoscalingResource; name: string }[] = [
  { resource: 'memory', name: 'Memory' },
  { resource: 'cpu', name: 'CPU' },
  { resource: 'disk', name: 'Disk' },
];

/** The six slots (memory, cpu, disk × up, down) in words; placeholders read "not configured". */
export function renderAutoscaling({ vsId, slots, sandbox }: { vsId: number; slots: readonly AutoscalingSlot[]; sandbox: boolean }): Rendered {
  const find = (resource: AutoscalingResource, scale: ScaleType) => slots.find((s) => s.resource === resource && s.scale_type === scale);
  const blocks: KnownBlock[] = [header(`Autoscaling · VS ${vsId}`)];
  let configured = 0;
  for (const { resource, name } of RESOURCES) {
    const up = find(resource, 'up');
    const down = find(resource, 'down');
    configured += Number(Boolean(up?.configured)) + Number(Boolean(down?.configured));
    blocks.push(section(`*${name}*\nUp: ${slotWords(up, 'up')}\nDown: ${slotWords(down, 'down')}`));
  }
  return {
    text: fallback(`Autoscaling of VS ${vsId}: ${configured} of 6 rules configured`, sandbox),
    blocks: withSandbox(blocks, sandbox),
  };
}

/** "+1 unit when usage ≥ 90% for 5 min, at most 4 per 24 h" */
export function slotWords(slot: AutoscalingSlot | undefined, scale: ScaleType): string {
  if (!slot || !slot.configured || slot.limit_trigger == null) return '_not configured_';
  const units = slot.adjust_units ?? 0;
  const sign = scale === 'up' ? '+' : '−';
  const compare = scale === 'up' ? '≥' : '≤';
  let words = `${sign}${units} unit${units === 1 ? '' : 's'} when usage ${compare} ${slot.limit_trigger}%`;
  if (slot.for_minutes != null) words += ` for ${slot.for_minutes} min`;
  if (slot.up_to != null) words += `, at most ${slot.up_to} per 24 h`;
  return words;
}
