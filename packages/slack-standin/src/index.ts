// The Slack stand-in: what local mode, the tests and the benchmark take from it.
export { startSlackStandIn, type Fault, type MethodHandler, type SlackStandIn, type SlackStandInOptions } from './standin';
export type { AppFunction, Execution, FunctionParameter } from './functions';
export type { ExecutionOptions } from './interactions';
export { readManifest, type AppManifest, type Shortcut, type SlashCommand } from './manifest';
export { readYaml, type Yaml } from './yaml';
export type { SandboxControl } from './sandbox-control';
export type { ArrivedMessage, ChannelMessage, PanelHint, StandInEvent, TimelineEntry } from './state';
export { sign, signatureHeaders } from './signing';
export {
  AUDIT_CHANNEL,
  BOT_USER,
  CHANNELS,
  INCIDENT_CHANNEL,
  MADE_UP_ROLES,
  ON_CALL_PERSON,
  ONCALL_GROUP,
  PEOPLE,
  TEAM,
  type Channel,
  type Person,
  type UserGroup,
} from './workspace';
/** Slack's payloads, one builder per kind (slash command, block_actions, view_submission…), as the stand-in sends them. */
export * as payloads from './payloads';
/** Events API envelopes and their events, as the stand-in sends them. */
export * as events from './events';
