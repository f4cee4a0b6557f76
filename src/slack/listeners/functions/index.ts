import { addressInput, idInput, portInput, protocolInput, type ManifestFunction } from './parameters';
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
];

/** Every step as manifest.yml's `functions` declares it, by callback id: what Slack (or the local stand-in) knows of them. */
export function manifestFunctions(): Record<string, ManifestFunction> {
  return Object.fromEntries(FUNCTIONS.map((row) => [row.callbackId, manifestOf(row)]));
}
