// The cloud API simulator: in-process (VS_API_URL=sandbox, tests) or standalone (npm run sandbox); and a PagerDuty stand-in.
export { startSandbox } from './server';
export { runSandboxCommand } from './main';
export { SANDBOX_ACCOUNT_ID, SANDBOX_API_KEY, SANDBOX_HEADER } from './identity';
export { defaultSeed } from './seed';
export { PANEL_ACTION } from './state';
export type {
  Sandbox,
  SandboxOptions,
  SandboxRequest,
  SandboxSeed,
  SandboxServer,
  SandboxBackup,
  SandboxDisk,
  SandboxFirewallRule,
  SandboxAutoscalingRule,
  SandboxTransaction,
  SandboxReadRow,
  SandboxReads,
  WireFormat,
  PanelAct,
  PanelActResult,
} from './types';
export {
  dailyShift,
  PAGERDUTY_STANDIN,
  startPagerDutyStandIn,
  type PagerDutyOnCall,
  type PagerDutyRequest,
  type PagerDutyStandIn,
  type PagerDutyStandInOptions,
  type PagerDutyUser,
  type ReceivedChangeEvent,
} from './pagerduty';
