import type { AllMiddlewareArgs, SlackShortcutMiddlewareArgs } from '@slack/bolt';
import { FORMS, openedAs } from '../../blocks/change-forms';
import type { ListenerRow } from '../listener';
import { openFormWithoutTarget } from '../open-form-without-target';

// The table of global shortcuts: each change form's (FORMS names its
// callback_id; manifest.yml declares it), opening the form without a target.
// A shortcut of another kind is a row added here.

export type ShortcutArgs = AllMiddlewareArgs & SlackShortcutMiddlewareArgs;

export interface ShortcutRow extends ListenerRow<ShortcutArgs> {
  /** As manifest.yml declares it, and the local page's shortcut menu lists it. */
  callbackId: string;
  name: string;
  description: string;
}

export const SHORTCUTS: readonly ShortcutRow[] = FORMS.map((form) => ({
  ...form.shortcut,
  needs: { need: { opens: openedAs(form) }, target: 'shortcut', title: form.title, channelChosenLater: true },
  run: (ctx, req) => openFormWithoutTarget(ctx, req, form),
}));
