// Who is on call now (docs/product.md, On call): PagerDuty's REST API (pagerduty.ts), matched to Slack people by
// email and kept for the cache time (on-call.ts). No Slack here: emails come through a port the composition root
// wires to Slack's users.info.
export { createOnCall, DEFAULT_FAILURE_CACHE_MS, type EmailDirectory, type OnCall, type OnCallAnswer, type OnCallList, type OnCallSettings } from './on-call';
export { createPagerDutyRest, PAGERDUTY_TIMEOUT_MS, PagerDutyError, type OnCallEntry, type OnCallQuery, type PagerDutyRest } from './pagerduty';
