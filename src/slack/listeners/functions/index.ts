import { STEP_INPUT_WORDS, STEP_WORDS } from '../../blocks/steps';
import { backupTakeRequestStep, diskRequestStep, firewallAddRequestStep, powerRequestStep, restoreRequestStep } from './change-steps';
import {
  addressInput,
  channelInput,
  choiceInput,
  idInput,
  serverInput,
  portInput,
  protocolInput,
  textInput,
  wholeNumberInput,
  type ManifestFunction,
  type OutputParameter,
} from './parameters';
import { autoscalingSummaryStep, firewallSummaryStep, portCheckStep, serverStatusStep } from './read-steps';
import { manifestOf, stepRow, type StepRow } from './step';

// The table of workflow steps (docs/product.md, Workflow steps): a row per
// custom step Workflow Builder offers, with its callback id, its typed inputs
// and outputs (parameters.ts: how manifest.yml declares each, and how a value
// is read; their words, as Workflow Builder shows them, in blocks/steps.ts),
// what running it needs, and what runs it. manifest.yml declares
// exactly these (`functions`; test/slack/listeners/manifest.test.ts keeps the
// two in step) and the local stand-in offers them on its Workflows panel.
// To add a step: a row here, its words in blocks/steps.ts, its listener beside
// this file, its declaration under manifest.yml's `functions` (written by
// scripts/manifest-functions.ts), its rows in docs/product.md's and README's
// tables of steps (docs/architecture.md, "Where to add things").

const IN = STEP_INPUT_WORDS;
const vsId = serverInput('vs_id', IN.vs_id.what, IN.vs_id);
/** Where a change step posts its request, and whose channel restriction (VS_MUTATION_CHANNELS) its claim and decision meet. */
const requestChannel = channelInput('channel', IN.channel);
const reason = textInput('reason', IN.reason);

/** What every change step completes with. */
const requestOutputs = (words: (typeof STEP_WORDS)['vs_request_disk']['outputs']) =>
  ({
    request_id: { type: 'string', ...words.request_id },
    status: { type: 'string', ...words.status, enum: ['awaiting_requester'] },
  }) satisfies Record<string, OutputParameter<string>>;

/** A step's title and description. */
const named = (callbackId: keyof typeof STEP_WORDS) => ({ callbackId, title: STEP_WORDS[callbackId].title, description: STEP_WORDS[callbackId].description });

export const FUNCTIONS: readonly StepRow[] = [
  stepRow({
    ...named('vs_firewall_summary'),
    inputs: { vs_id: vsId },
    outputs: {
      summary: { type: 'string', ...STEP_WORDS.vs_firewall_summary.outputs.summary },
      rule_count: { type: 'integer', ...STEP_WORDS.vs_firewall_summary.outputs.rule_count },
    },
    needs: { need: 'workflow_read' },
    run: firewallSummaryStep,
  }),
  stepRow({
    ...named('vs_port_check'),
    inputs: {
      vs_id: vsId,
      port: portInput('port', IN.port),
      protocol: protocolInput('protocol', IN.protocol),
      source: addressInput('source', IN.source),
    },
    outputs: {
      verdict: { type: 'string', ...STEP_WORDS.vs_port_check.outputs.verdict, enum: ['accepted', 'dropped', 'mixed', 'undecided'] },
      summary: { type: 'string', ...STEP_WORDS.vs_port_check.outputs.summary },
    },
    needs: { need: 'workflow_read' },
    run: portCheckStep,
  }),
  stepRow({
    ...named('vs_autoscaling_summary'),
    inputs: { vs_id: vsId },
    outputs: {
      summary: { type: 'string', ...STEP_WORDS.vs_autoscaling_summary.outputs.summary },
      configured_count: { type: 'integer', ...STEP_WORDS.vs_autoscaling_summary.outputs.configured_count },
    },
    needs: { need: 'workflow_read' },
    run: autoscalingSummaryStep,
  }),
  stepRow({
    ...named('vs_server_status'),
    inputs: { vs_id: vsId },
    outputs: {
      summary: { type: 'string', ...STEP_WORDS.vs_server_status.outputs.summary },
      power: { type: 'string', ...STEP_WORDS.vs_server_status.outputs.power, enum: ['on', 'off', 'suspended', 'recovery'] },
      locked: { type: 'boolean', ...STEP_WORDS.vs_server_status.outputs.locked },
    },
    needs: { need: 'workflow_read' },
    run: serverStatusStep,
  }),
  // Change steps change nothing: the door checks the inputs as the form would, and the person who claims the request.
  stepRow({
    ...named('vs_request_disk'),
    inputs: {
      vs_id: vsId,
      disk_type: choiceInput('disk_type', {
        ...IN.disk_type,
        choices: [
          { value: 'HDD', title: 'HDD' },
          { value: 'SSD', title: 'SSD' },
        ],
      }),
      disk_size: wholeNumberInput('disk_size', IN.disk_size),
      label: textInput('label', { ...IN.label, optional: true }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs(STEP_WORDS.vs_request_disk.outputs),
    needs: { need: 'everyone' },
    run: diskRequestStep,
  }),
  stepRow({
    ...named('vs_request_restore'),
    inputs: {
      backup_id: idInput('backup_id', IN.backup_id.what, IN.backup_id),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs(STEP_WORDS.vs_request_restore.outputs),
    needs: { need: 'everyone' },
    run: restoreRequestStep,
  }),
  stepRow({
    ...named('vs_request_power'),
    inputs: {
      vs_id: vsId,
      action: choiceInput('action', {
        ...IN.action,
        choices: [
          { value: 'startup', title: 'Start' },
          { value: 'shutdown', title: 'Shut down' },
          { value: 'reboot', title: 'Reboot' },
          { value: 'stop', title: 'Stop (forced)' },
        ] as const,
      }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs(STEP_WORDS.vs_request_power.outputs),
    needs: { need: 'everyone' },
    run: powerRequestStep,
  }),
  stepRow({
    ...named('vs_request_backup_take'),
    inputs: {
      vs_id: vsId,
      disk_id: idInput('disk_id', IN.disk_id.what, IN.disk_id),
      note: textInput('note', { ...IN.note, optional: true }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs(STEP_WORDS.vs_request_backup_take.outputs),
    needs: { need: 'everyone' },
    run: backupTakeRequestStep,
  }),
  stepRow({
    ...named('vs_request_firewall_add'),
    inputs: {
      vs_id: vsId,
      command: choiceInput('command', {
        ...IN.command,
        choices: [
          { value: 'DROP', title: 'DROP (block)' },
          { value: 'ACCEPT', title: 'ACCEPT (allow)' },
        ] as const,
      }),
      address: textInput('address', { ...IN.address, optional: true }),
      port: textInput('port', { ...IN.rule_port, optional: true }),
      protocol: protocolInput('protocol', IN.protocol),
      network_interface_id: textInput('network_interface_id', { ...IN.network_interface_id, optional: true }),
      channel: requestChannel,
      reason,
    },
    outputs: requestOutputs(STEP_WORDS.vs_request_firewall_add.outputs),
    needs: { need: 'everyone' },
    run: firewallAddRequestStep,
  }),
];

/** Every step as manifest.yml's `functions` declares it, by callback id: what Slack (or the local stand-in) knows of them. */
export function manifestFunctions(): Record<string, ManifestFunction> {
  return Object.fromEntries(FUNCTIONS.map((row) => [row.callbackId, manifestOf(row)]));
}
