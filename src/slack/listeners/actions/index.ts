import type { AllMiddlewareArgs, BlockButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import type { ListenerRow } from '../listener';
import { firewallPage } from './firewall-page';

// The table of buttons: a row per action_id (or pattern of them), with what
// pressing it needs and what runs it. To add a button: its renderer in
// blocks/, a row here, and its listener beside this file.

export type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockButtonAction>;

export interface ActionRow extends ListenerRow<ButtonArgs> {
  actionId: string | RegExp;
}

export const ACTIONS: readonly ActionRow[] = [{ actionId: /^firewall_page_(prev|next)$/, needs: { need: 'read' }, run: firewallPage }];
