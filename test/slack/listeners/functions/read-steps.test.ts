import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHarness, useHarnessBehindFaults, type Harness } from '../../../helpers/app-harness';
import { body, forward } from '../../../helpers/cloud-fault-server';
import { answerTo, completionsOf, runStep } from '../../../helpers/drive';
import { readYaml } from '@vs-chatops/slack-standin';
import { waitFor } from '../../../helpers/wait';

// The read steps over the real Bolt app: Slack's signed function_executed in
// (built by the stand-in, which issues the execution's token and checks the
// completion against the outputs manifest.yml declares), the step ended with
// functions.completeSuccess or completeError. Three bots: JSON through a
// fault server (outputs, bad inputs, cloud errors, retries, hostile API text,
// an org-wide install), XML with VS_VIEWERS set and VS_WORKFLOW_READS=everyone,
// and VS_VIEWERS set alone (reads refused).

const FIREWALL_42 =
  'VS 42 firewall, 8 rules: accepts 22/tcp from 203.0.113.0/24, 80/tcp, 443/tcp from anywhere, 8000-8100/tcp from 10.20.0.0/16, ' +
  '53,123/udp from 10.20.0.2/32; drops 3306/tcp from anywhere; accepts 161/udp from 198.51.100.7/32; drops all other tcp';

const cloudPaths = (h: Harness) => h.sandbox.requests.map((r) => `${r.method} ${r.path}`);

/** The one log line of a step's request (written once the completion call has returned, so waited for). */
function stepLine(h: Harness, executionId: string): Promise<Record<string, unknown>> {
  const find = () => h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'step' && l.function_execution_id === executionId);
  return waitFor(`the log line of step ${executionId}`, find, { within: 2000 });
}

describe('read steps, the cloud API in JSON behind a fault server', () => {
  // The org-wide install's workspaces are served (SLACK_TEAM_ID's is the stand-in's).
  const { h, fault } = useHarnessBehindFaults({ env: { VS_API_TIMEOUT_MS: '500', VS_ALLOWED_TEAMS: 'T0HOME,T0OTHER' } });

  test("vs_firewall_summary completes with the firewall in the words of a server's card, on the execution's own token", async () => {
    const { execution, ack } = await runStep(h, 'vs_firewall_summary', { vs_id: 42 });
    expect(ack.body).toBe('');
    expect(execution.state).toBe('completed');
    // What is open, briefly: a workflow posting it into an incident channel wants the ports.
    expect(execution.outputs).toEqual({ summary: FIREWALL_42, rule_count: 8 });
    const [completion] = completionsOf(h, execution.id);
    expect(completion).toMatchObject({ method: 'functions.completeSuccess', ok: true, token: execution.token });
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/42/firewall_rules.json']);
    // Logged with the ids the workflow's activity shows, never its token.
    expect(await stepLine(h, execution.id)).toMatchObject({
      step: 'vs_firewall_summary',
      workflow_execution_id: execution.workflowExecutionId,
      outcome: 'succeeded',
    });
    expect(h.logs.join('\n')).not.toContain(execution.token);
  });

  test('vs_server_status completes with the server in one line, its power and whether it is locked', async () => {
    const { execution } = await runStep(h, 'vs_server_status', { vs_id: 42 });
    expect(execution.outputs).toEqual({
      // A label that reads like a domain is defanged, as all text a workflow may post (blocks/steps.ts).
      summary: 'VS 42 (web-1): on, not locked · 4 GB memory, 2 CPUs, 22 GB disk · 203.0.113.42, 10.20.0.42',
      power: 'on',
      locked: false,
    });
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/42.json']);
    // Locked: the transaction that holds it is named (one more read, only then).
    const locked = await runStep(h, 'vs_server_status', { vs_id: 47 });
    expect(locked.execution.outputs).toEqual({
      summary: 'VS 47 (web-2): on, locked: taking an incremental backup is running · 4 GB memory, 2 CPUs, 30 GB disk · 10.20.0.47',
      power: 'on',
      locked: true,
    });
    expect((await runStep(h, 'vs_server_status', { vs_id: 43 })).execution.outputs).toMatchObject({ power: 'off', locked: false });
    const unknown = await runStep(h, 'vs_server_status', { vs_id: 999 });
    expect(unknown.execution).toMatchObject({ state: 'failed', error: 'VS 999 was not found' });
  });

  test('vs_autoscaling_summary completes with the six slots in one line and how many are configured', async () => {
    const { execution } = await runStep(h, 'vs_autoscaling_summary', { vs_id: '#42' });
    expect(execution.outputs).toEqual({ summary: 'VS 42 autoscaling: 3 of 6 rules configured: Memory up, Memory down, CPU up', configured_count: 3 });
    expect(cloudPaths(h)).toEqual(['GET /virtual_machines/42/auto_scaling.json']);
  });

  // docs/product.md, Servers by name: looked up in the account's list, then read by its id.
  test('a server by its name or address; a name of several servers or of none ends the step with the names, reading nothing more', async () => {
    const byName = await runStep(h, 'vs_server_status', { vs_id: 'web-1' });
    expect(byName.execution.outputs).toMatchObject({ power: 'on', summary: expect.stringMatching(/^VS 42 \(web-1\): on/) });
    expect(cloudPaths(h)).toEqual([expect.stringMatching(/^GET \/virtual_machines\.json/), 'GET /virtual_machines/42.json']);
    const byAddress = await runStep(h, 'vs_firewall_summary', { vs_id: '203.0.113.42' });
    expect(byAddress.execution.outputs).toEqual({ summary: FIREWALL_42, rule_count: 8 });
    const several = await runStep(h, 'vs_server_status', { vs_id: 'web' });
    expect(several.execution).toMatchObject({ state: 'failed', error: expect.stringContaining('web names 2 servers: web-1 (VS 42), web-2 (VS 47)') });
    const none = await runStep(h, 'vs_server_status', { vs_id: 'web-9' });
    expect(none.execution).toMatchObject({ state: 'failed', error: expect.stringMatching(/^No server is named web-9\. Did you mean web-1 \(VS 42\)/) });
    expect(cloudPaths(h).filter((path) => /^GET \/virtual_machines\/\d+/.test(path))).toEqual([
      'GET /virtual_machines/42.json',
      'GET /virtual_machines/42/firewall_rules.json',
    ]);
  });

  test.each([
    [{ vs_id: 42, port: 443 }, 'accepted', 'VS 42 · 443/tcp: accepted for everyone (rule #3)'],
    [{ vs_id: 42, port: 22 }, 'dropped', 'VS 42 · 22/tcp: accepted from 203.0.113.0/24 (rule #1); dropped for everyone else (rule #8)'],
    [{ vs_id: 42, port: 53, protocol: 'udp' }, 'undecided', 'VS 42 · 53/udp: accepted from 10.20.0.2/32 (rule #5); no rule for anyone else'],
    [{ vs_id: 44, port: 443, protocol: 'TCP' }, 'undecided', "VS 44 · 443/tcp: no rule decides: the interface's default applies (the API does not show it)"],
    [{ vs_id: 77, port: 443 }, 'mixed', 'VS 77 · 443/tcp: interface 21: accepted for everyone (rules #1, #4) · interface 22: accepted from 10.77.0.0/16'],
    [{ vs_id: 77, port: 8443, source: '198.51.100.50' }, 'dropped', 'VS 77 · 8443/tcp from 198.51.100.50: dropped, on both network interfaces'],
    [
      { vs_id: 77, port: 9000, source: '::ffff:10.77.0.5' },
      'mixed',
      'interface 21: cannot tell: rule #8 cannot be read; if it does not apply, dropped (rule #9)',
    ],
  ])('vs_port_check %o completes with verdict %s', async (inputs, verdict, summary) => {
    const { execution } = await runStep(h, 'vs_port_check', inputs);
    expect(execution.outputs).toEqual({ verdict, summary: expect.stringContaining(summary) });
    expect(cloudPaths(h)).toEqual([`GET /virtual_machines/${inputs.vs_id}/firewall_rules.json`]);
  });

  test('the port answer is the one the slash command gives, word for word', async () => {
    const { execution } = await runStep(h, 'vs_port_check', { vs_id: 77, port: 53, protocol: 'udp' });
    const command = await answerTo(h, 'firewall 77 53/udp');
    expect(execution.outputs!.summary).toBe(command.text);
  });

  test('inputs that do not read end the step with every problem, by name, in plain words; the cloud API is not asked', async () => {
    const { execution } = await runStep(h, 'vs_port_check', { vs_id: '42x', port: 70000, protocol: 'icmp', source: '10.0.0.0/8' });
    expect(execution.state).toBe('failed');
    expect(execution.error).toBe(
      'vs_id: "42x" is not a valid server id: ids are positive integers, e.g. 42. ' +
        'port: "70000" is not a port: ports are whole numbers from 1 to 65535. ' +
        'protocol: "icmp" is not a protocol the question takes: tcp or udp (tcp when none is given). ' +
        'source: "10.0.0.0/8" is not an IP address: give one address, not a block or a range.',
    );
    expect(completionsOf(h, execution.id)).toMatchObject([{ method: 'functions.completeError', ok: true }]);
    const missing = await runStep(h, 'vs_firewall_summary', {});
    expect(missing.execution.error).toBe('vs_id (Server id) is required.');
    for (const vsId of [0, -1, 1.5, '42abc']) expect((await runStep(h, 'vs_autoscaling_summary', { vs_id: vsId })).execution.state).toBe('failed');
    expect(h.sandbox.requests).toEqual([]);
    expect(await stepLine(h, execution.id)).toMatchObject({ outcome: 'invalid' });
  });

  test('an unknown server ends the step with "VS 999 was not found"', async () => {
    const { execution } = await runStep(h, 'vs_firewall_summary', { vs_id: 999 });
    expect(execution).toMatchObject({ state: 'failed', error: 'VS 999 was not found' });
    expect(await stepLine(h, execution.id)).toMatchObject({ outcome: 'not_found' });
  });

  test('a cloud API that does not answer ends the step with the timeout, in the words a command would use', async () => {
    fault.handle(() => undefined);
    const { execution } = await runStep(h, 'vs_autoscaling_summary', { vs_id: 42 });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(/^The cloud API did not answer within 0\.5 s\. Try again shortly/);
    fault.handle(body(500, '{"errors":["database unavailable"]}'));
    const failed = await runStep(h, 'vs_firewall_summary', { vs_id: 42 });
    expect(failed.execution.error).toContain('The cloud API failed (HTTP 500): database unavailable.');
  });

  test('an execution delivered again (Slack’s retry, or under a new event id) runs and completes once', async () => {
    const { execution, envelope } = await runStep(h, 'vs_firewall_summary', { vs_id: 42 });
    const retry = await h.event(envelope, { headers: { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' } });
    expect(retry.status).toBe(200);
    const again = h.slack.functionExecuted('vs_firewall_summary', { vs_id: 42 }, { functionExecutionId: execution.id });
    expect(again.envelope.event_id).not.toBe(envelope.event_id);
    expect((await h.event(again.envelope)).status).toBe(200);
    // Nothing waits on a delivery that does nothing: a read step after them shows they are done.
    await runStep(h, 'vs_autoscaling_summary', { vs_id: 42 });
    expect(completionsOf(h, execution.id)).toHaveLength(1);
    expect(cloudPaths(h).filter((p) => p.includes('firewall_rules'))).toHaveLength(1);
  });

  test('API text in outputs and errors cannot mention anyone or link anywhere', async () => {
    const rule = (id: number, command: string, address: string) => ({
      firewall_rule: { id, network_interface_id: 1, position: id, address, port: '', protocol: 'TCP', command },
    });
    fault.handle((req, res) => {
      if (!req.url.includes('firewall_rules')) return forward(h.sandbox.url, req, res);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify([
          rule(1, '<!channel>', '10.0.0.1'),
          rule(2, 'https://evil.example/x', ''),
          rule(3, '<@U0ADMIN>', 'www.evil.example'),
          rule(4, 'DROP', ''),
        ]),
      );
    });
    const firewall = await runStep(h, 'vs_firewall_summary', { vs_id: 42 });
    const port = await runStep(h, 'vs_port_check', { vs_id: 42, port: 443 });
    fault.handle(body(403, '{"errors":["<!here> see <https://evil.example|the docs> or mail ops@evil.example"]}'));
    const refused = await runStep(h, 'vs_autoscaling_summary', { vs_id: 42 });
    for (const text of [firewall.execution.outputs!.summary, port.execution.outputs!.summary, refused.execution.error]) {
      expect(text).toEqual(expect.any(String));
      expect(text).not.toMatch(/[<>]/);
      expect(text).not.toMatch(/evil\.example|https:\/\//);
    }
    expect(firewall.execution.outputs!.summary).toContain('&lt;!CHANNEL&gt;');
    expect(refused.execution.error).toContain('&lt;!here&gt; see &lt;https[:]//evil[.]example|the docs&gt; or mail ops@evil[.]example');
  });

  test('every step manifest.yml declares is handled: run with no inputs, each completes with an error naming its required inputs', async () => {
    const declared = readYaml(readFileSync(join(__dirname, '..', '..', '..', '..', 'manifest.yml'), 'utf8')) as {
      functions: Record<string, { input_parameters: { required: string[] } }>;
    };
    for (const [callbackId, fn] of Object.entries(declared.functions)) {
      const { execution } = await runStep(h, callbackId, {});
      expect(execution.state).toBe('failed');
      for (const name of fn.input_parameters.required) expect(execution.error).toContain(`${name} (`);
    }
    expect(h.sandbox.requests).toEqual([]);
  });

  test('a step from an org-wide install (an enterprise id, a workspace other than the one addressed) is handled like any other', async () => {
    const { execution } = await runStep(
      h,
      'vs_firewall_summary',
      { vs_id: 42 },
      { source: { enterpriseId: 'E0ORG', teamId: 'T0HOME', contextTeamId: 'T0OTHER' } },
    );
    expect(execution).toMatchObject({ state: 'completed', outputs: { rule_count: 8 } });
    expect(completionsOf(h, execution.id)[0]).toMatchObject({ ok: true, token: execution.token });
  });
});

describe('read steps, the cloud API in XML, VS_VIEWERS set and VS_WORKFLOW_READS=everyone', () => {
  const h = useHarness({ env: { VS_API_FORMAT: 'xml', VS_VIEWERS: 'U0VIEWER', VS_WORKFLOW_READS: 'everyone' } });

  test('each read step completes from XML with the outputs it gives from JSON', async () => {
    expect((await runStep(h, 'vs_firewall_summary', { vs_id: 42 })).execution.outputs).toEqual({
      summary: FIREWALL_42,
      rule_count: 8,
    });
    expect((await runStep(h, 'vs_autoscaling_summary', { vs_id: 42 })).execution.outputs).toMatchObject({ configured_count: 3 });
    expect((await runStep(h, 'vs_server_status', { vs_id: 47 })).execution.outputs).toEqual({
      summary: 'VS 47 (web-2): on, locked: taking an incremental backup is running · 4 GB memory, 2 CPUs, 30 GB disk · 10.20.0.47',
      power: 'on',
      locked: true,
    });
    expect((await runStep(h, 'vs_port_check', { vs_id: 42, port: 22 })).execution.outputs).toEqual({
      verdict: 'dropped',
      summary: 'VS 42 · 22/tcp: accepted from 203.0.113.0/24 (rule #1); dropped for everyone else (rule #8)',
    });
    expect(cloudPaths(h)).toEqual([
      'GET /virtual_machines/42/firewall_rules.xml',
      'GET /virtual_machines/42/auto_scaling.xml',
      'GET /virtual_machines/47.xml',
      'GET /virtual_machines/47/transactions.xml',
      'GET /virtual_machines/42/firewall_rules.xml',
    ]);
  });
});

describe('read steps while VS_VIEWERS limits reads', () => {
  const h = useHarness({ env: { VS_VIEWERS: 'U0VIEWER' } });

  test('each read step ends with an error naming VS_VIEWERS and VS_WORKFLOW_READS, and the cloud API is not asked', async () => {
    for (const [callbackId, inputs] of [
      ['vs_firewall_summary', { vs_id: 42 }],
      ['vs_port_check', { vs_id: 42, port: 443 }],
      ['vs_autoscaling_summary', { vs_id: 42 }],
    ] as const) {
      const { execution } = await runStep(h, callbackId, inputs);
      expect(execution.state).toBe('failed');
      expect(execution.error).toContain('VS_VIEWERS limits who may read servers');
      expect(execution.error).toContain('VS_WORKFLOW_READS=everyone');
      expect(await stepLine(h, execution.id)).toMatchObject({ outcome: 'denied' });
    }
    expect(h.sandbox.requests).toEqual([]);
  });
});
