// The make-believe workspace of local mode, and the one place its ids are
// written: the stand-in's people, user group and channels carry them, the
// bot's config names them for local mode's made-up roles and audit channel
// (LOCAL_MODE in src/config.ts imports MADE_UP_ROLES and AUDIT_CHANNEL), and
// the page reads them from the stand-in (/local/state). Ids follow Slack's
// shapes so the bot's config rules (U…, S…, C… ids) take them as they are.

export interface Person {
  id: string;
  name: string;
  /** What the page says about them, e.g. "admin". */
  role: string;
  /** Their profile's email (users.info, with users:read.email): what an on-call tool matches them by. */
  email?: string;
}

export interface Channel {
  id: string;
  name: string;
  /** Shown under the channel name. */
  topic: string;
  /** Who is in it, in the order Slack lists them; unset: every person of the workspace, and the bot. */
  members?: readonly string[];
  /** A direct message between the app and this person (conversations.open): only they see it. */
  dmWith?: string;
}

export interface UserGroup {
  id: string;
  /** Its @handle, without the @. */
  handle: string;
  members: readonly string[];
}

export const BOT_USER = { id: 'U0VSCHATOPS', botId: 'B0VSCHATOPS', name: 'vs-chatops' } as const;
export const TEAM = { id: 'T0LOCAL', domain: 'local' } as const;
export const APP_ID = 'A0VSCHATOPS';

const ADA: Person = { id: 'U0ADMIN', name: 'Ada (admin)', role: 'admin', email: 'ada@example.com' };
const BEA: Person = { id: 'U0ADMIN2', name: 'Bea (admin)', role: 'admin', email: 'bea@example.com' };
const OTTO: Person = { id: 'U0OPERATOR', name: 'Otto (operator)', role: 'operator', email: 'otto@example.com' };
const VERA: Person = { id: 'U0VIEWER', name: 'Vera (viewer)', role: 'viewer', email: 'vera@example.com' };
const OMAR_ID = 'U0ONCALL';

export const ONCALL_GROUP: UserGroup = { id: 'S0ONCALL', handle: 'oncall-infra', members: [OMAR_ID] };
const OMAR: Person = { id: OMAR_ID, name: `Omar (@${ONCALL_GROUP.handle})`, role: `member of @${ONCALL_GROUP.handle}`, email: 'omar@example.com' };

/**
 * On call now in local mode's PagerDuty stand-in (the bot's local mode starts it with her on its schedule), and a
 * viewer otherwise: the page shows a role that comes from being on call.
 */
const PIA: Person = { id: 'U0PAGED', name: 'Pia (on call)', role: 'viewer; operator while on call in PagerDuty', email: 'pia@example.com' };

export const PEOPLE: readonly Person[] = [ADA, BEA, OTTO, VERA, OMAR, PIA];

/** Who is on call now in local mode's PagerDuty stand-in. */
export const ON_CALL_PERSON = PIA;

/** The channel local mode posts its audit records to unless VS_AUDIT_CHANNEL names another. */
export const AUDIT_CHANNEL: Channel = { id: 'C0AUDIT', name: 'vs-audit', topic: 'Every change the bot makes, recorded' };

/** The incident's channel: where local mode posts agents' requests unless VS_AGENT_CHANNEL names another. */
export const INCIDENT_CHANNEL: Channel = { id: 'C0INCIDENT', name: 'incident-42', topic: 'VS 42 is slow: investigating' };

export const CHANNELS: readonly Channel[] = [INCIDENT_CHANNEL, { id: 'C0GENERAL', name: 'general', topic: 'Everyone' }, AUDIT_CHANNEL];

/**
 * The roles local mode gives these people when none of VS_ADMINS, VS_OPERATORS, VS_VIEWERS is set (the names above
 * say them): Ada and Bea admins (two, so that one can approve what the other asks for), Otto and the on-call group
 * operators; everyone is a viewer.
 */
export const MADE_UP_ROLES = {
  admins: [ADA.id, BEA.id],
  operators: [OTTO.id, ONCALL_GROUP.id],
} as const satisfies Record<string, readonly string[]>;
