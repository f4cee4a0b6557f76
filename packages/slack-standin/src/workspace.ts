// The make-believe workspace of local mode: its people, channels and the
// on-call user group. Ids follow Slack's shapes so the bot's config rules
// (U…, S…, C… ids) take them as they are; the roles and the audit channel
// local mode gives them are config's (LOCAL_MODE), on these ids.

export interface Person {
  id: string;
  name: string;
  /** What the page says about them, e.g. "admin". */
  role: string;
}

export interface Channel {
  id: string;
  name: string;
  /** Shown under the channel name. */
  topic: string;
  /** Who is in it, in the order Slack lists them; unset: every person of the workspace, and the bot. */
  members?: readonly string[];
}

export const BOT_USER = { id: 'U0VSCHATOPS', botId: 'B0VSCHATOPS', name: 'vs-chatops' } as const;
export const TEAM = { id: 'T0LOCAL', domain: 'local' } as const;
export const APP_ID = 'A0VSCHATOPS';

export const ONCALL_GROUP = { id: 'S0ONCALL', handle: 'oncall-infra' } as const;

export const PEOPLE: readonly Person[] = [
  { id: 'U0ADMIN', name: 'Ada (admin)', role: 'admin' },
  { id: 'U0ADMIN2', name: 'Bea (admin)', role: 'admin' },
  { id: 'U0OPERATOR', name: 'Otto (operator)', role: 'operator' },
  { id: 'U0VIEWER', name: 'Vera (viewer)', role: 'viewer' },
  { id: 'U0ONCALL', name: 'Omar (@oncall-infra)', role: 'member of @oncall-infra' },
];

export const CHANNELS: readonly Channel[] = [
  { id: 'C0INCIDENT', name: 'incident-42', topic: 'VS 42 is slow: investigating' },
  { id: 'C0GENERAL', name: 'general', topic: 'Everyone' },
  { id: 'C0AUDIT', name: 'vs-audit', topic: 'Every change the bot makes, recorded' },
];
