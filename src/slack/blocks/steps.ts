import { MAX_REASON_LENGTH } from '../../changes';
import { PORT_MAX } from '../../firewall/ports';
import { cleanEcho } from './grammar';
import type { Freeze } from '../../store';
import { escapeMrkdwn, fallback, oneLine, truncate, unrecordable, utcText } from './mrkdwn';
import type { AutoscalingSummary, FirewallSummary, ServerSummary } from './summaries';

// The words of the workflow steps (docs/product.md, Workflow steps): what
// Workflow Builder shows of each step and its parameters, their outputs, the
// errors they complete with, and what a step's inputs are told when they do
// not read. Outputs and errors are plain text that a workflow
// may put anywhere, a message included, so nothing in them can mention
// anyone or link anywhere: text from the API or from a person is escaped
// (<, >, & cannot open a mention or a link) and what Slack would turn into a
// link of its own accord (a URL, a domain) is defanged (`evil[.]example`).

/** A parameter's or a step's name and description, as Workflow Builder shows them. */
export interface StepWords {
  title: string;
  description: string;
}

/** The steps' inputs, by name; an id's `what` names it in a refusal ("is not a valid server id"). */
export const STEP_INPUT_WORDS = {
  vs_id: { title: 'Server id', description: 'The virtual server (VS): its id, e.g. 42, or its name, hostname or address, e.g. web-1', what: 'server id' },
  port: { title: 'Port', description: 'One port, 1 to 65535' },
  protocol: { title: 'Protocol', description: 'tcp or udp (tcp when not given)' },
  source: { title: 'Source address', description: 'One IPv4 or IPv6 address; when not given, any source no narrower rule names' },
  disk_type: { title: 'Disk type', description: 'HDD or SSD' },
  disk_size: { title: 'Size (GB)', description: 'The size of the disk in GB, at least 1' },
  label: { title: 'Label', description: 'The name of the disk (optional)' },
  channel: { title: 'Channel', description: 'Where the request is posted, for someone to claim it and a second person to approve it' },
  reason: {
    title: 'Reason',
    description: `Why the workflow asks for this change (at most ${MAX_REASON_LENGTH} characters), shown with the request`,
  },
  backup_id: { title: 'Backup id', description: 'The id of the backup to restore, e.g. 9', what: 'backup id' },
  action: { title: 'Action', description: 'startup, shutdown (graceful), reboot or stop (a forced power-off)' },
  disk_id: { title: 'Disk id', description: "The id of one of the server's built disks to back up, e.g. 110 (/vs disks <vs_id> lists them)", what: 'disk id' },
  note: { title: 'Note', description: 'A note kept with the backup (optional)' },
  command: { title: 'Rule', description: 'DROP (block the traffic) or ACCEPT (allow it)' },
  address: { title: 'Address', description: 'An address (203.0.113.5), a CIDR block (192.0.2.0/24) or a range; empty for every address' },
  rule_port: { title: 'Port', description: 'A port (443), a list (80,443) or a range (1024:1028); empty for every port' },
  network_interface_id: {
    title: 'Network interface id',
    description: "The interface the rule is for; empty when the server's rules name only one (it is then chosen)",
  },
} satisfies Record<string, StepWords & { what?: string }>;

/** What every change step completes with. */
const REQUEST_OUTPUT_WORDS = {
  request_id: { title: 'Request id', description: 'The id of the request posted in the channel (its audit records carry it too)' },
  status: {
    title: 'Status',
    description: 'awaiting_requester: posted, nothing changed; whoever claims it becomes the requester and a second person approves it',
  },
} satisfies Record<string, StepWords>;

/** Each step, by callback id: its title and description, and its outputs'. */
export const STEP_WORDS = {
  vs_firewall_summary: {
    title: "Summarise a server's firewall",
    description: "What the server's firewall lets in, in one line: which ports and protocols it accepts or drops, from where",
    outputs: {
      summary: {
        title: 'Summary',
        description: 'What the firewall accepts and drops, briefly, in position order, e.g. "accepts 443/tcp from anywhere; drops 23/tcp from anywhere"',
      },
      rule_count: { title: 'Rule count', description: 'How many firewall rules the server has' },
    },
  },
  vs_port_check: {
    title: 'Does this traffic reach the server?',
    description: 'Whether traffic to a port (from one address, or from anywhere) is accepted or dropped by the firewall, per network interface',
    outputs: {
      verdict: {
        title: 'Verdict',
        description: 'accepted or dropped on every network interface, undecided when no rule decides on any, mixed otherwise',
      },
      summary: { title: 'Summary', description: 'The answer in one line, with the rules that decide, as /vs firewall <vs_id> <port> says it' },
    },
  },
  vs_autoscaling_summary: {
    title: "Summarise a server's autoscaling",
    description: 'Which of the six autoscaling rules (memory, CPU, disk; up and down) are configured',
    outputs: {
      summary: { title: 'Summary', description: 'The autoscaling rules in one line, as /vs autoscaling counts them' },
      configured_count: { title: 'Configured count', description: 'How many of the six autoscaling rules are configured' },
    },
  },
  vs_server_status: {
    title: 'Server at a glance',
    description: 'The server in one line: its name, power (on, off, suspended, in recovery), whether a transaction locks it, its size and addresses',
    outputs: {
      summary: { title: 'Summary', description: 'The server in one line, in the words of /vs server' },
      power: { title: 'Power', description: 'on, off, suspended or recovery (on, in the recovery image)' },
      locked: { title: 'Locked', description: 'Whether a running transaction locks the server (changes wait until it has finished)' },
    },
  },
  vs_request_disk: {
    title: 'Ask for a disk',
    description:
      'Posts a request to add a disk to a server, with the exact API request; someone with the operator role claims it and a second person approves it',
    outputs: REQUEST_OUTPUT_WORDS,
  },
  vs_request_restore: {
    title: 'Ask for a backup restore',
    description:
      "Posts a request to restore a backup (it overwrites the backup's disk), with the exact API request; an admin claims it and a second admin approves it",
    outputs: REQUEST_OUTPUT_WORDS,
  },
  vs_request_power: {
    title: 'Ask for a power action',
    description:
      'Posts a request to start, shut down, reboot or stop a server, with the exact API request; ' +
      'someone whose role allows it claims it and a second person approves it',
    outputs: REQUEST_OUTPUT_WORDS,
  },
  vs_request_backup_take: {
    title: 'Ask for a backup',
    description: "Posts a request to take a backup of one of a server's disks now, with the exact API request; an operator claims it",
    outputs: REQUEST_OUTPUT_WORDS,
  },
  vs_request_firewall_add: {
    title: 'Ask for a firewall rule',
    description:
      'Posts a request to add a DROP or ACCEPT rule to a server and apply its rules, with the exact API request and what the rule would do; ' +
      'an operator claims it',
    outputs: REQUEST_OUTPUT_WORDS,
  },
} satisfies Record<string, StepWords & { outputs: Record<string, StepWords> }>;

/** Slack shows a step's error in the workflow's activity; long ones are cut there anyway. */
const MAX_ERROR = 1000;
/** Outputs of type string: Slack takes more, but nobody reads more in a message. */
const MAX_SUMMARY = 2900;

/** Text a workflow may place in a message: one line, defanged; `escaped` says whether the API's and people's text in it is escaped already. */
export function stepText(text: string, o: { escaped: boolean; max: number }): string {
  const line = oneLine(text).trim();
  return truncate(defang(o.escaped ? line : escapeMrkdwn(line)), o.max);
}

/** A URL's scheme and a domain's dots, so that Slack links neither: `https[:]//evil[.]example`. */
export function defang(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*):\/\//gi, '$1[:]//')
    .replace(/\b(?:[a-z0-9-]+\.)+[a-z]{2,}\b/gi, (domain) => domain.replace(/\./g, '[.]'))
    .replace(/\bwww\./gi, 'www[.]');
}

/**
 * vs_firewall_summary's `summary`: what the firewall lets in, briefly, for a workflow posting it into an incident
 * channel ("VS 42 firewall, 8 rules: accepts 443/tcp from anywhere, 22/tcp from 10.0.0.0/8; drops 23/tcp from anywhere").
 */
export function firewallStepSummary(vsId: number, firewall: FirewallSummary, description: string, sandbox: boolean): string {
  const said =
    firewall.ruleCount === 0
      ? `VS ${vsId} firewall: ${firewall.line}`
      : `VS ${vsId} firewall, ${firewall.ruleCount} rule${firewall.ruleCount === 1 ? '' : 's'}: ${description}`;
  return stepText(fallback(said, sandbox), { escaped: true, max: MAX_SUMMARY });
}

/** vs_autoscaling_summary's `summary`. */
export function autoscalingStepSummary(vsId: number, autoscaling: AutoscalingSummary, sandbox: boolean): string {
  return stepText(fallback(`VS ${vsId} autoscaling: ${autoscaling.line}`, sandbox), { escaped: true, max: MAX_SUMMARY });
}

/** vs_server_status's `summary`: the server's name and state in one line, its size and addresses ("VS 42 (web-1.prod): on, not locked · …"). */
export function serverStatusStepSummary(vsId: number, server: ServerSummary, sandbox: boolean): string {
  const line = `VS ${vsId}${server.label ? ` (${server.label})` : ''}: ${server.state}${server.size ? ` · ${server.size}` : ''}`;
  return stepText(fallback(line, sandbox), { escaped: true, max: MAX_SUMMARY });
}

/** vs_port_check's `summary`: the port answer's own notification line (`/vs firewall <vs_id> <port>` says the same). */
export function portCheckStepSummary(answerLine: string): string {
  return stepText(answerLine, { escaped: true, max: MAX_SUMMARY });
}

/** The error a step completes with (functions.completeError): the same sentence a command would answer with. */
export function stepError(text: string): string {
  return stepText(text, { escaped: false, max: MAX_ERROR });
}

/** When a step fails in a way it did not foresee. */
export const STEP_WENT_WRONG = 'Something went wrong while running this step; nothing was changed by it. Try again, and tell the bot operator if it repeats.';

/** A read step while VS_VIEWERS limits reads and VS_WORKFLOW_READS is not `everyone`. */
export const WORKFLOW_READS_REFUSED =
  'This step was not run: VS_VIEWERS limits who may read servers, and nothing in a workflow proves who started it. ' +
  'To let workflow steps read servers whatever VS_VIEWERS says, the bot operator can set VS_WORKFLOW_READS=everyone.';

/** A change step while the store cannot be reached: nothing could be recorded, so nothing was asked. */
export const STEP_UNRECORDED = unrecordable('Nothing can be asked for', 'nothing was posted or changed', 'Run the workflow again in a few minutes.');

/**
 * A change step while changes are frozen: who froze, when and why, as the refusal of any change says it (plain text,
 * the person by id: a workflow's error mentions nobody).
 */
export function frozenForStep(freeze: Freeze): string {
  return (
    `Changes are frozen: ${freeze.by} froze them at ${utcText(freeze.at)} because “${oneLine(freeze.reason)}”. ` +
    'Nothing was posted or changed. Run the workflow again once an admin has allowed changes again with /vs unfreeze.'
  );
}

/** A change step whose request could not be posted in its channel: nobody could claim it, so it expires unanswered. */
/** A workflow past VS_WORKFLOW_REQUESTS_PER_HOUR: nothing was asked for, and when it may ask again. */
export function workflowLimitedForStep(o: { perHour: number; channelId: string; retryInSeconds: number }): string {
  const minutes = Math.max(1, Math.ceil(o.retryInSeconds / 60));
  return (
    `This workflow has asked for ${o.perHour} changes in channel ${o.channelId} in the last hour, the most one workflow may ` +
    `(VS_WORKFLOW_REQUESTS_PER_HOUR), so this one was not asked for and nobody was called; nothing was changed. ` +
    `It may ask again in ${minutes} minute${minutes === 1 ? '' : 's'}.`
  );
}

export function requestNotPostedForStep(channelId: string): string {
  return (
    `The request could not be posted in channel ${channelId} (is the bot a member? /invite it there). ` +
    'Nothing has been changed; the request expires unanswered. Run the workflow again once the bot can post there.'
  );
}

/** A change step's inputs the form would refuse: each, by input name, in the form's words. */
export function stepFieldErrors(fieldErrors: Record<string, string>): string {
  return Object.entries(fieldErrors)
    .map(([name, message]) => (name === 'confirm_risk' ? RISK_NOT_FROM_WORKFLOWS : `${name}: ${message.replace(/[.]?$/, '.')}`))
    .join(' ');
}

/** A form's second confirmation (a rule that cuts SSH for everyone) is a person's to give: a workflow is not asked for it. */
const RISK_NOT_FROM_WORKFLOWS =
  'This rule would drop every address on port 22 (SSH), which needs a second confirmation by a person: ask for it with /vs firewall block, whose form asks.';

/** What a step's inputs are told when they do not read; `name` is the input's name in the step, `title` what Workflow Builder shows. */
export const stepInputRefusals = {
  missing: (name: string, title: string) => `${name} (${title}) is required.`,
  notAnId: (name: string, typed: unknown, what: string) => `${name}: ${echo(typed)} is not a valid ${what}: ids are positive integers, e.g. 42.`,
  notAPort: (name: string, typed: unknown) => `${name}: ${echo(typed)} is not a port: ports are whole numbers from 1 to ${PORT_MAX}.`,
  notAProtocol: (name: string, typed: unknown) => `${name}: ${echo(typed)} is not a protocol the question takes: tcp or udp (tcp when none is given).`,
  notAnAddress: (name: string, typed: unknown) => {
    const text = String(typed);
    const why = text.includes('/') || text.includes('-') ? 'give one address, not a block or a range' : 'give one IPv4 or IPv6 address, e.g. 198.51.100.9';
    return `${name}: ${echo(typed)} is not an IP address: ${why}.`;
  },
  notAChoice: (name: string, typed: unknown, choices: readonly string[]) => `${name}: ${echo(typed)} is not one of ${choices.join(', ')}.`,
  notText: (name: string) => `${name}: expected text.`,
  notAChannel: (name: string, typed: unknown) => `${name}: ${echo(typed)} is not a channel id (C…, G…).`,
  notAWholeNumber: (name: string, typed: unknown) => `${name}: ${echo(typed)} is not a whole number.`,
  /** Several at once: each, in the inputs' order. */
  all: (problems: readonly string[]) => problems.join(' '),
};

/** A value a person or a previous step gave, quoted short: one line, no control characters. */
function echo(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : (JSON.stringify(value) ?? '');
  const cleaned = cleanEcho(text);
  return cleaned === '' ? '(empty)' : `"${cleaned}"`;
}
