import { MAX_REASON_LENGTH } from '../../../changes';
import { diskRequestStep, restoreRequestStep } from './change-steps';
import {
  addressInput,
  channelInput,
  choiceInput,
  idInput,
  portInput,
  protocolInput,
  textInput,
  wholeNumberInput,
  type ManifestFunction,
  type OutputParameter,
} from './parameters';
import { autoscalingSummaryStep, firewallSummaryStep, portCheckStep } from './read-steps';
import { manifestOf, stepRow, type StepRow } from './step';

// The table of workflow steps (PRODUCT.md, "Workflow steps"): a row per
// custom step Workflow Builder offers, with its callback id, its typed inputs
// and outputs (parameters.ts: how manifest.yml declares each, and how a value
// is read), what running it needs, and what runs it. manifest.yml declares
// exactly these (`functions`; test/slack/listeners/manifest.test.ts keeps the
// two in step) and the local stand-in offers them on its Workflows panel.
// To add a step: a row here, its listener beside this file, its declaration
// under manifest.yml's `functions`.

const vsId = idInput('vs_id', 'server id', { title: 'Server id', description: 'The id of the virtual server (VS), e.g. 42' });

/** Where a change step posts its request, and whose channel restriction (VS_MUTATION_CHANNELS) its claim and decision meet. */
const requestChannel = channelInput('channel', {
  title: 'Channel',
  description: 'Where the request is posted, for someone to claim it and a second person to approve it',
});
const reason = textInput('reason', {
  title: 'Reason',
  description: `Why the workflow asks for this change (at most ${MAX_REASON_LENGTH} characters), shown with the request`,
});

/** What every change step completes with. */
const requestOutputs = {
  request_id: { type: 'string', title: 'Request id', description: 'The id of the request posted in the channel (its audit records carry it too)' },
  status: {
    type: 'string',
    title: 'Status',
    description: 'awaiting_requester: posted, nothing changed; whoever claims it becomes the requester and a second person approves it',
    enum: ['awaiting_requester'],
  },
} satisfies Record<string, OutputParameter<string>>;

export const FUNCTIONS: readonly StepRow[] = [
  stepRow({
    callbackId: 'vs_firewall_summary',
    title: "Summarise a server's firewall",
    description: "The server's firewall rules in one line: how many, accepted or dropped, on how many network interfaces",
    inputs: { vs_id: vsId },
    outputs: {
      summary: { type: 'string', title: 'Summary', description: 'The firewall rules in one line, as /vs firewall counts them' },
      rule_count: { type: 'integer', title: 'Rule count', description: 'How many firewall rules the server has' },
    },
    needs: { need: 'workflow_read' },
    run: firewallSummaryStep,
  }),
  stepRow({
    callbackId: 'vs_port_check',
    title: 'Does this traffic reach the server?',
    description: 'Whether traffic to a port (from one address, or from anywhere) is accepted or dropped by the firewall, per network interface',
    inputs: {
      vs_id: vsId,
      port: portInput('port', { title: 'Port', description: 'One port, 1 to 65535' }),
      protocol: protocolInput('protocol', { title: 'Protocol', description: 'tcp or udp (tcp when not given)' }),
      source: addressInput('source', { title: 'Source address', description: 'One IPv4 or IPv6 address; when not given, any source no narrower rule names' }),
    },
    outputs: {
      verdict: {
        type: 'string',
        title: 'Verdict',
        description: 'accepted or dropped on every network interface, undecided when no rule decides on any, mixed otherwise',
        enum: ['accepted', 'dropped', 'mixed', 'undecided'],
      },
      summary: { type: 'string', title: 'Summary', description: 'The answer in one line, with the rules that decide, as /vs firewall <vs_id> <port> says it' },
    },
    needs: { need: 'workflow_read' },
    run: portCheckStep,
  }),
  stepRow({
    callbackId: 'vs_autoscaling_summary',
    title: "Summarise a server's autoscaling",
    description: 'Which of the six autoscaling rules (memory, CPU, disk; up and down) are configured',
    inputs: { vs_id: vsId },
    outputs: {
      summary: { type: 'string', title: 'Summary', description: 'The autoscaling rules in one line, as /vs autoscaling counts them' },
      configured_count: { type: 'integer', title: 'Configured count', description: 'How many of the six autoscaling rules are configured' },
    },
    needs: { need: 'workflow_read' },
    run: autoscalingSummaryStep,
  }),
  // Change steps change nothing: the door checks the inputs as the form would, and the person who claims the request.
  stepRow({
    callbackId: 'vs_request_disk',
    title: 'Ask for a disk',
    description:
      'Posts a request to add a disk to a server, with the exact API request; someone with the operator role claims it and a second person approves it',
    inputs: {
      vs_id: vsId,
      disk_type: choiceInput('disk_type', {
        title: 'Disk type',
        description: 'HDD or SSD',
        choices: [
          { value: 'HDD', title: 'HDD' },
          { value: 'SSD', title: 'SSD' },
        ],
      }),
      disk_size: wholeNumberInput('disk_size', { title: 'Size (GB)', description: 'The size of the disk in GB, at least 1' }),
      label: textInput('label', { title: 'Label', description: 'The name of the disk (optional)', optional: true }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs,
    needs: { need: 'everyone' },
    run: diskRequestStep,
  }),
  stepRow({
    callbackId: 'vs_request_restore',
    title: 'Ask for a backup restore',
    description:
      "Posts a request to restore a backup (it overwrites the backup's disk), with the exact API request; an admin claims it and a second admin approves it",
    inputs: {
      backup_id: idInput('backup_id', 'backup id', { title: 'Backup id', description: 'The id of the backup to restore, e.g. 9' }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs,
    needs: { need: 'everyone' },
    run: restoreRequestStep,
  }),
];

/** Every step as manifest.yml's `functions` declares it, by callback id: what Slack (or the local stand-in) knows of them. */
export function manifestFunctions(): Record<string, ManifestFunction> {
  return Object.fromEntries(FUNCTIONS.map((row) => [row.callbackId, manifestOf(row)]));
}
