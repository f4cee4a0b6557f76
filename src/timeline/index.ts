// The incident's timeline (docs/product.md, On call): every change that ends, as a PagerDuty change event, sent from
// the store's outbox of change events (sender.ts) through the Events API (events-api.ts). No Slack here: people's
// names and the change's link come through a port the composition root wires to Slack.
export { changeEventOf, EVENT_SOURCE, MAX_SUMMARY_LENGTH, peopleOf, type ChangeEventBody, type EventFacts } from './change-event';
export { endOf, type ChangeEnd } from './ended';
export { EVENTS_TIMEOUT_MS, pagerDutyEvents, type EventSent, type SendChangeEvent } from './events-api';
export { CHANGE_EVENT_DEFAULTS, createChangeEventSender, type ChangeEventSender, type EventFactsOf } from './sender';
