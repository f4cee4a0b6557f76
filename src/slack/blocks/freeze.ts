import type { Freeze } from '../../store';
import { frozenText } from './denials';
import { context, fallback, oneLine, type Rendered, safe, section, slackTime, unrecordable, userMention, withSandbox } from './mrkdwn';

// The freeze in the channel (docs/product.md, Freeze): said where it was typed,
// for everyone there, and to the audit channel by its audit record.

const reasonOf = (freeze: Freeze) => `“${safe(oneLine(freeze.reason), 300)}”`;

export function renderFrozen(freeze: Freeze, sandbox: boolean): Rendered {
  return {
    text: fallback(`Changes are frozen by ${userMention(freeze.by)}: ${reasonOf(freeze)}`, sandbox),
    blocks: withSandbox(
      [
        section(`:ice_cube: *Changes are frozen* by ${userMention(freeze.by)} ${slackTime(freeze.at)}: ${reasonOf(freeze)}`),
        context('Every change is refused, on every instance, until an admin runs `/vs unfreeze`. Reads keep working.'),
      ],
      sandbox,
    ),
  };
}

export function renderUnfrozen(o: { lifted: Freeze; by: string; sandbox: boolean }): Rendered {
  return {
    text: fallback(`Changes are allowed again (unfrozen by ${userMention(o.by)})`, o.sandbox),
    blocks: withSandbox(
      [
        section(`:sunny: *Changes are allowed again*: ${userMention(o.by)} lifted the freeze.`),
        context(`It was set by ${userMention(o.lifted.by)} ${slackTime(o.lifted.at)}: ${reasonOf(o.lifted)}`),
      ],
      o.sandbox,
    ),
  };
}

/** `/vs freeze` while frozen: the freeze in force stays, as it was. */
export function renderAlreadyFrozen(freeze: Freeze): Rendered {
  const text =
    `Changes were already frozen: ${userMention(freeze.by)} froze them ${slackTime(freeze.at)} because ${reasonOf(freeze)}. ` + 'That freeze stays in force.';
  return { text: fallback(`Changes were already frozen by ${userMention(freeze.by)}`), blocks: [section(`:ice_cube: ${text}`)] };
}

export const NOT_FROZEN = 'Changes are not frozen; nothing to unfreeze.';

/** `/vs whoami`'s line about the freeze. */
export function freezeLine(freeze: Freeze | null): string {
  return freeze ? `:ice_cube: ${frozenText(freeze)}` : 'Changes are not frozen.';
}

/** The store could not be reached: nothing was switched, because it could not be recorded. */
export const FREEZE_UNRECORDED = unrecordable('The freeze could not be switched', 'nothing was changed', 'Try again in a minute.');
