import type { ChannelMessage } from '@vs-chatops/slack-standin';
import { BOT_TOKEN, useHarnessBehindFaults } from '../../../helpers/app-harness';
import { forward, reply } from '../../../helpers/cloud-fault-server';
import { answerTo, CHANNEL, runStep } from '../../../helpers/drive';
import { unverbatimTexts } from '../../blocks/limits';
import { answerToClick, clickOn, messageOf, recordsOf, shownRequest, updatedTo, type PostedRequest } from '../../../helpers/requests';

// The change steps over the real Bolt app with signed requests: a workflow
// asks for a change and nothing is changed. The step posts the request in its
// channel with the exact API request and a "Request this change" button, and
// completes with the request's id and its outcome, `requested`. The first person
// allowed to make the change who clicks becomes its requester (role, channel
// and freeze checked at the click); it is then an approval request that needs a
// second person, whatever VS_APPROVALS says (unset here). Unclaimed requests
// expire. Every record names the workflow's execution.

const ENV = {
  VS_ADMINS: 'UADMIN,UADMIN2',
  VS_OPERATORS: 'UOPER,UOPER2,WORGOPER',
  VS_VIEWERS: 'UVIEWER',
  VS_MUTATION_CHANNELS: `${CHANNEL},CWAR`,
  VS_APPROVAL_TTL_MIN: '30',
  VS_AUDIT_CHANNEL: 'CAUDIT',
  VS_SWEEP_INTERVAL_MS: '100',
  // An org-wide install's workspaces are served beside the stand-in's own.
  VS_ALLOWED_TEAMS: 'T0HOME,T0OTHER',
};

/** Added to the real clock: the bot's fake clock. */
let skew = 0;

const { h, fault: cloud } = useHarnessBehindFaults({ env: ENV, now: () => Date.now() + skew });

const changePosts = () => cloud.requests.filter((r) => r.method === 'POST');
const blocksOf = (m: ChannelMessage) => JSON.stringify(m.blocks ?? []);

interface Posted extends PostedRequest {
  workflowExecutionId: string;
}

/** Runs a change step and returns the request it posted, found by its claim button. */
async function asked(callbackId: string, inputs: Record<string, unknown>, channel = CHANNEL): Promise<Posted> {
  const { execution } = await runStep(h, callbackId, { channel, ...inputs });
  if (execution.state !== 'completed') throw new Error(`the step did not complete: ${execution.error}`);
  const id = String(execution.outputs!.request_id);
  const message = h.slack.messagesIn(channel).find((m) => blocksOf(m).includes(`"value":"${id}"`));
  if (!message) throw new Error('no request was posted');
  return { id, ts: message.ts, channel, workflowExecutionId: execution.workflowExecutionId };
}

/** Each test's own disk: the same change still unclaimed would be the one request it already is (a workflow asking again). */
let disks = 0;
const askDisk = (inputs: Record<string, unknown> = {}, channel?: string) =>
  asked('vs_request_disk', { vs_id: 42, disk_type: 'SSD', disk_size: 20, label: `scratch-${++disks}`, reason: 'the data disk is full', ...inputs }, channel);

const claim = (user: string, p: Posted, tweak?: (payload: Record<string, unknown>) => void) => clickOn(h, user, 'change_request_claim', p, tweak);

describe('a change step', () => {
  test("a workflow's reason is shown as text: escaped, in verbatim mrkdwn, so a bare link or @here in it is neither linked nor a mention", async () => {
    const p = await askDisk({ reason: 'see https://evil.example/login @here <!channel> #general' });
    const message = messageOf(h, p);
    expect(blocksOf(message)).toContain('see https://evil.example/login @here &lt;!channel&gt; #general');
    expect(unverbatimTexts(message.blocks)).toEqual([]);
    await claim('UOPER', p);
    const claimed = await updatedTo(h, p, /Approval needed/);
    expect(blocksOf(claimed)).toContain('see https://evil.example/login @here &lt;!channel&gt; #general');
    expect(unverbatimTexts(claimed.blocks)).toEqual([]);
    // Those who may decide it were called once, when it was posted: the claim calls nobody again.
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.thread_ts === p.ts)).toEqual([]);
  });

  test('a power step takes the server by name: it asks for web-1 (VS 42); a name of several servers posts nothing', async () => {
    const { execution } = await runStep(h, 'vs_request_power', { vs_id: 'WEB-1', action: 'reboot', channel: CHANNEL, reason: 'hung' });
    expect(execution).toMatchObject({ state: 'completed', outputs: { status: 'awaiting_requester' } });
    const id = String(execution.outputs!.request_id);
    const message = h.slack.messagesIn(CHANNEL).find((m) => blocksOf(m).includes(`"value":"${id}"`))!;
    expect(blocksOf(message)).toContain('web-1 (VS 42)');
    expect(shownRequest(message)).toMatch(/^POST \/virtual_machines\/42\/reboot\.json/);
    const posted = h.slack.messagesIn(CHANNEL).length;
    const several = await runStep(h, 'vs_request_power', { vs_id: 'web', action: 'reboot', channel: CHANNEL, reason: 'hung' });
    expect(several.execution).toMatchObject({ state: 'failed', error: expect.stringContaining('web names 2 servers: web-1 (VS 42), web-2 (VS 47)') });
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(posted);
    expect(changePosts()).toEqual([]);
  });

  test('posts the request with its reason, the exact request and the claim button, completes with its id and awaiting_requester; changes nothing', async () => {
    const { execution } = await runStep(h, 'vs_request_disk', {
      vs_id: 42,
      disk_type: 'SSD',
      disk_size: '20',
      label: 'scratch',
      channel: CHANNEL,
      reason: 'the data disk is full',
    });
    // The step's status is the contract's (docs/product.md, Workflow steps): nobody has asked yet.
    expect(execution).toMatchObject({ state: 'completed', outputs: { request_id: expect.any(String), status: 'awaiting_requester' } });
    const id = String(execution.outputs!.request_id);
    const message = h.slack.messagesIn(CHANNEL).find((m) => blocksOf(m).includes(`"value":"${id}"`))!;
    expect(blocksOf(message)).toContain('A workflow asks to *Add disk* · web-1 (VS 42)');
    expect(blocksOf(message)).toContain('the data disk is full');
    expect(blocksOf(message)).toContain('"action_id":"change_request_claim"');
    expect(blocksOf(message)).toContain('Request this change');
    // Nobody has asked yet: everyone who may claim it is mentioned, so that someone is notified.
    expect(blocksOf(message)).toContain('*Who may request it:* <@UADMIN> <@UADMIN2> <@UOPER> <@UOPER2> <@WORGOPER>');
    expect(shownRequest(message)).toBe('POST /virtual_machines/42/disks.json\n\n{"disk":{"disk_type":"SSD","disk_size":"20","label":"scratch"}}');
    // Posted with the app's own token, not the execution's: its button outlives the step.
    expect(h.slack.callsTo('chat.postMessage').find((c) => c.args.channel === CHANNEL)).toMatchObject({ ok: true, token: BOT_TOKEN });
    expect(changePosts()).toEqual([]);
    expect(await recordsOf(h, id)).toMatchObject([{ outcome: 'requested', userId: '', requestedBy: null, workflowExecutionId: execution.workflowExecutionId }]);
    // /vs audit says who asked: a workflow, and which execution of it.
    const audit = JSON.stringify(await answerTo(h, 'audit 1', { user: 'UADMIN' }));
    expect(audit).toContain('a workflow · *Add disk* · web-1 (VS 42) → *requested*: a second person must approve it');
    expect(audit).toContain(`workflow \`${execution.workflowExecutionId}\``);
  });

  test('a viewer cannot claim it, nor an operator where changes are not allowed; each refusal is told and recorded, the button stays', async () => {
    const p = await askDisk();
    expect(await (await claim('UVIEWER', p)).told()).toMatch(/operator/);
    const elsewhere = await askDisk({}, 'CGENERAL');
    expect(await (await claim('UOPER', elsewhere)).told()).toMatch(/Changes are only allowed in <#CINCIDENT>, <#CWAR>/);
    expect(blocksOf(messageOf(h, p))).toContain('change_request_claim');
    expect(blocksOf(messageOf(h, elsewhere))).toContain('change_request_claim');
    expect((await recordsOf(h, p.id)).map((r) => [r.outcome, r.userId, r.workflowExecutionId])).toEqual([
      ['requested', '', p.workflowExecutionId],
      ['refused', 'UVIEWER', p.workflowExecutionId],
    ]);
    expect(changePosts()).toEqual([]);
  });

  test('claimed by an operator it becomes an approval request needing a second person; approved by another, the exact request is sent once', async () => {
    const p = await askDisk();
    const shown = shownRequest(messageOf(h, p));
    await claim('UOPER', p);
    const request = await updatedTo(h, p, /approval_approve/);
    expect(blocksOf(request)).toContain('<@UOPER> asks to *Add disk* · web-1 (VS 42)');
    expect(blocksOf(request)).not.toContain('change_request_claim');
    expect(blocksOf(request)).toContain(p.workflowExecutionId);
    // Later claimers are told who took it; the requester cannot approve their own request.
    expect(await (await claim('UOPER2', p)).told()).toMatch(/<@UOPER> already requested this change/);
    expect(await answerToClick(h, 'UOPER', 'approval_approve', p)).toMatch(/own/);
    expect(changePosts()).toEqual([]);
    await clickOn(h, 'UOPER2', 'approval_approve', p);
    await updatedTo(h, p, /Approved\* by <@UOPER2>/);
    await clickOn(h, 'UADMIN', 'approval_approve', p);
    expect(changePosts()).toHaveLength(1);
    expect(`${changePosts()[0]!.method} ${changePosts()[0]!.url}\n\n${changePosts()[0]!.body}`).toBe(shown);
    const records = await recordsOf(h, p.id);
    expect(records.map((r) => [r.outcome, r.userId])).toEqual([
      ['requested', ''],
      ['requested', 'UOPER'],
      ['refused', 'UOPER'],
      // The approval is the change's record from then on.
      ['scheduled', 'UOPER2'],
    ]);
    for (const r of records) expect(r.workflowExecutionId).toBe(p.workflowExecutionId);
    expect(records.at(-1)).toMatchObject({ requestedBy: 'UOPER', decidedBy: 'UOPER2' });
  });

  test('a restore asked by a workflow is claimed by an admin (not an operator) and approved by a second admin', async () => {
    const p = await asked('vs_request_restore', { backup_id: '#9', reason: 'table corrupted after the deploy' });
    expect(shownRequest(messageOf(h, p))).toBe('POST /backups/9/restore.json');
    expect(await (await claim('UOPER', p)).told()).toMatch(/admin/);
    await claim('UADMIN', p);
    await updatedTo(h, p, /approval_approve/);
    await clickOn(h, 'UADMIN2', 'approval_approve', p);
    await updatedTo(h, p, /Approved\* by <@UADMIN2>/);
    expect(changePosts().map((r) => `${r.method} ${r.url}`)).toEqual(['POST /backups/9/restore.json']);
    expect((await recordsOf(h, p.id)).at(-1)).toMatchObject({ outcome: 'scheduled', params: { backup_id: 9, reason: 'table corrupted after the deploy' } });
  });

  test("a workflow's restore names what it overwrites; one of a backup that cannot be used asks nobody (docs/product.md, Restore with eyes open)", async () => {
    const p = await asked('vs_request_restore', { backup_id: '9', reason: 'table corrupted after the deploy' });
    expect(blocksOf(messageOf(h, p))).toContain('Restoring backup 9 overwrites disk 101 of VS 42: everything written to disk 101 since');
    // Backup 12 is marked for deletion: the step fails with why, nothing is posted, and the refusal is on record.
    const before = h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL).length;
    const { execution } = await runStep(h, 'vs_request_restore', { backup_id: 12, channel: CHANNEL, reason: 'roll back' });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(/^Backup 12 .*marked for deletion.* Nothing was sent\.$/);
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL)).toHaveLength(before);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ target: 'backup:12', outcome: 'refused', workflowExecutionId: execution.workflowExecutionId });
    expect(changePosts()).toEqual([]);
  });

  test('while changes are frozen nobody can claim it; unfrozen, the claim works', async () => {
    const p = await askDisk();
    await answerTo(h, 'freeze maintenance window', { user: 'UADMIN' });
    try {
      expect(await (await claim('UOPER', p)).told()).toMatch(/frozen/i);
    } finally {
      await answerTo(h, 'unfreeze', { user: 'UADMIN' });
    }
    await claim('UOPER', p);
    await updatedTo(h, p, /approval_approve/);
  });

  test('while changes are frozen it posts nothing and ends with an error saying who froze, when and why, recorded as denied; unfrozen, it asks', async () => {
    await answerTo(h, 'freeze db migration, see https://status.example.com <!here>', { user: 'UADMIN' });
    const freeze = (await h.store.freeze.current())!;
    let steps;
    try {
      steps = [
        await runStep(h, 'vs_request_disk', { vs_id: 42, disk_type: 'SSD', disk_size: 20, channel: CHANNEL, reason: 'the data disk is full' }),
        await runStep(h, 'vs_request_restore', { backup_id: 9, channel: CHANNEL, reason: 'roll back' }),
      ];
    } finally {
      await answerTo(h, 'unfreeze', { user: 'UADMIN' });
    }
    const when = `${freeze.at.slice(0, 19).replace('T', ' ')} UTC`;
    for (const { execution } of steps) {
      expect(execution.state).toBe('failed');
      // Plain text a workflow may put anywhere: the reason's link and mention are defanged and escaped.
      expect(execution.error).toBe(
        `Changes are frozen: UADMIN froze them at ${when} because “db migration, see https[:]//status[.]example[.]com &lt;!here&gt;”. ` +
          'Nothing was posted or changed. Run the workflow again once an admin has allowed changes again with /vs unfreeze.',
      );
    }
    // No request posted (a reply in an earlier request's thread, late from the test before, is not one).
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL && c.args.thread_ts === undefined)).toEqual([]);
    const denied = (await h.store.audit.latest(10)).filter((r) => r.outcome === 'refused' && r.userId === '' && r.detail?.startsWith('changes are frozen'));
    expect(denied.map((r) => [r.action, r.workflowExecutionId, r.detail])).toEqual(
      steps
        .reverse()
        .map(({ execution }) => [
          expect.any(String),
          execution.workflowExecutionId,
          `changes are frozen (by UADMIN at ${freeze.at}: db migration, see https://status.example.com <!here>)`,
        ]),
    );
    expect(changePosts()).toEqual([]);
    // Unfrozen, the workflow's next run asks.
    await askDisk();
  });

  test('inputs the form would refuse end the step with each problem by input, recorded as invalid; nothing is posted', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ disk_size: 0 }, 'disk_size: Enter a whole number of GB, at least 1.'],
      [
        { disk_size: 70000, label: 'a\u0007b' },
        'disk_size: At most 2048 GB: the largest disk this bot adds (VS_MAX_DISK_GB). label: No control characters in a label.',
      ],
      [{ disk_size: 'twenty' }, 'disk_size: "twenty" is not a whole number.'],
      [{ disk_type: 'NVMe' }, 'disk_type: "NVMe" is not one of HDD, SSD.'],
      [{ reason: ' ' }, 'reason: Give the reason the workflow asks for this change.'],
      [{ reason: 'x'.repeat(501) }, 'reason: At most 500 characters.'],
      [{ channel: 'general' }, 'channel: "general" is not a channel id (C…, G…).'],
    ];
    for (const [inputs, error] of cases) {
      const { execution } = await runStep(h, 'vs_request_disk', { vs_id: 42, disk_type: 'SSD', disk_size: 20, channel: CHANNEL, reason: 'full', ...inputs });
      expect(execution).toMatchObject({ state: 'failed', error });
    }
    expect((await runStep(h, 'vs_request_restore', { channel: CHANNEL })).execution.error).toBe(
      'backup_id (Backup id) is required. reason (Reason) is required.',
    );
    expect(h.slack.callsTo('chat.postMessage').filter((c) => c.args.channel === CHANNEL)).toEqual([]);
    const invalid = (await h.store.audit.latest(10)).filter((r) => r.outcome === 'refused');
    expect(invalid.length).toBeGreaterThanOrEqual(3);
    for (const r of invalid) expect(r).toMatchObject({ userId: '', workflowExecutionId: expect.stringMatching(/^Wx/) });
  });

  test('an execution delivered again posts one request and completes once', async () => {
    const first = h.slack.functionExecuted('vs_request_disk', { vs_id: 43, disk_type: 'HDD', disk_size: 5, channel: CHANNEL, reason: 'logs' });
    const again = h.slack.functionExecuted('vs_request_disk', {}, { functionExecutionId: first.execution.id });
    await Promise.all([h.event(first.envelope), h.event(again.envelope)]);
    const done = await h.slack.waitForExecution(first.execution.id);
    expect(done.state).toBe('completed');
    // Another step after them shows they are done.
    await askDisk();
    expect(h.slack.callsTo('functions.completeSuccess').filter((c) => c.args.function_execution_id === first.execution.id)).toHaveLength(1);
    expect(h.slack.messagesIn(CHANNEL).filter((m) => blocksOf(m).includes('VS 43'))).toHaveLength(1);
  });

  test('a request that cannot be posted ends the step with an error saying where and why; nothing is changed', async () => {
    // Only in CWAR: the audit channel's posts (the outbox, in the background) go on as before, and take no fault meant for the step.
    h.slack.on('chat.postMessage', (args) => (args.channel === 'CWAR' ? { body: { ok: false, error: 'not_in_channel' } } : undefined));
    const { execution } = await runStep(h, 'vs_request_disk', { vs_id: 42, disk_type: 'SSD', disk_size: 20, channel: 'CWAR', reason: 'full' });
    expect(execution.state).toBe('failed');
    expect(execution.error).toMatch(/^The request could not be posted in channel CWAR \(is the bot a member\?/);
    expect(changePosts()).toEqual([]);
  });

  test('from an org-wide install: the step from another workspace, claimed by a W… operator, is handled like any other', async () => {
    const { execution } = await runStep(
      h,
      'vs_request_disk',
      { vs_id: 44, disk_type: 'SSD', disk_size: 8, channel: CHANNEL, reason: 'org' },
      { source: { enterpriseId: 'E0ORG', teamId: 'T0HOME', contextTeamId: 'T0OTHER' } },
    );
    expect(execution.state).toBe('completed');
    const id = String(execution.outputs!.request_id);
    const message = h.slack.messagesIn(CHANNEL).find((m) => blocksOf(m).includes(`"value":"${id}"`))!;
    const p: Posted = { id, ts: message.ts, channel: CHANNEL, workflowExecutionId: execution.workflowExecutionId };
    await claim('WORGOPER', p, (payload) => {
      Object.assign(payload, { enterprise: { id: 'E0ORG', name: 'Org' }, is_enterprise_install: true, team: { id: 'T0OTHER', domain: 'other' } });
      Object.assign(payload.user as object, { team_id: 'T0OTHER' });
    });
    const request = await updatedTo(h, p, /approval_approve/);
    expect(blocksOf(request)).toContain('<@WORGOPER> asks to');
  });

  test('a request nobody claims expires: its message says so, it is recorded, and a later claim is told', async () => {
    const p = await askDisk();
    skew += 31 * 60_000;
    try {
      await updatedTo(h, p, /Expired\* nobody claimed it|Expired\*: nobody claimed it/);
      expect(blocksOf(messageOf(h, p))).not.toContain('change_request_claim');
      expect((await recordsOf(h, p.id)).map((r) => [r.outcome, r.userId, r.workflowExecutionId])).toEqual([
        ['requested', '', p.workflowExecutionId],
        ['expired', '', p.workflowExecutionId],
      ]);
      expect(await (await claim('UOPER', p)).told()).toMatch(/expired/);
    } finally {
      skew = 0;
    }
    expect(changePosts()).toEqual([]);
  });

  test("the workflow's text in the request cannot mention anyone or link anywhere; the exact request is shown verbatim", async () => {
    const p = await askDisk({ reason: '<!channel> see <https://evil.example|docs> <@UADMIN>', label: 'x<@UADMIN>' });
    type Block = { type: string; text?: { text: string }; elements?: { text?: string }[] };
    const blocks = messageOf(h, p).blocks as Block[];
    // What Slack reads as mrkdwn: sections and context lines.
    const mrkdwn = blocks.flatMap((b) => [
      b.type === 'section' ? (b.text?.text ?? '') : '',
      ...(b.type === 'context' ? (b.elements ?? []).map((e) => e.text ?? '') : []),
    ]);
    // The only mentions are the bot's own line of who may request it.
    const own = /\n\*Who may request it:\* (<@[UW][A-Z0-9]+> ?)+$/m;
    for (const text of mrkdwn) expect(text.replace(own, '')).not.toMatch(/<!channel>|<https:|<@UADMIN>/);
    expect(mrkdwn.join('\n')).toMatch(own);
    expect(mrkdwn.join('\n')).toContain('&lt;!channel&gt; see &lt;https://evil.example|docs&gt; &lt;@UADMIN&gt;');
    // Rich text's preformatted text is shown as it is, never parsed: the body as it will be sent.
    expect(shownRequest(messageOf(h, p))).toContain('"label":"x<@UADMIN>"');
  });
});

describe('the change steps of the control panel (backup, firewall rule), from the table of changes', () => {
  test('vs_request_backup_take asks for a backup of the disk named, by the server named, with its exact request; changes nothing', async () => {
    const p = await asked('vs_request_backup_take', { vs_id: 'web-1', disk_id: 101, note: 'before the upgrade', reason: 'take one before we touch it' });
    const message = messageOf(h, p);
    expect(blocksOf(message)).toContain('A workflow asks to *Take backup* · web-1 (VS 42)');
    expect(shownRequest(message)).toBe('POST /virtual_machines/42/disks/101/backups.json\n\n{"backup":{"note":"before the upgrade"}}');
    expect(await recordsOf(h, p.id)).toMatchObject([{ outcome: 'requested', action: 'backup_take', workflowExecutionId: p.workflowExecutionId }]);
    expect(changePosts()).toEqual([]);
  });

  test('a server with no built disk ends the backup step with the words the command uses, posting nothing', async () => {
    // Its disks read as the cloud would list a server being built: none yet.
    cloud.handle((req, res) => (req.url.startsWith('/virtual_machines/43/disks') ? reply(res, 200, '[]') : forward(h.sandbox.url, req, res)));
    const posted = h.slack.messagesIn(CHANNEL).length;
    const { execution } = await runStep(h, 'vs_request_backup_take', { vs_id: 43, disk_id: 5, channel: CHANNEL, reason: 'r' });
    expect(execution).toMatchObject({ state: 'failed', error: 'VS 43 has no disks, so there is nothing to back up. Nothing was asked of anyone.' });
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(posted);
  });

  test('vs_request_firewall_add chooses the only interface as the form would, and posts the exact rule; several interfaces must be named', async () => {
    const p = await asked('vs_request_firewall_add', { vs_id: 42, command: 'DROP', address: '203.0.113.5', port: '443', protocol: 'tcp', reason: 'scanner' });
    expect(shownRequest(messageOf(h, p))).toBe(
      'POST /virtual_machines/42/firewall_rules.json\n\n' +
        '{"firewall_rule":{"address":"203.0.113.5","command":"DROP","port":"443","protocol":"TCP","network_interface_id":"3"}}',
    );
    expect(blocksOf(messageOf(h, p))).toContain('A workflow asks to *Add firewall rule* · web-1 (VS 42)');
    const several = await runStep(h, 'vs_request_firewall_add', { vs_id: 45, command: 'DROP', address: '203.0.113.5', channel: CHANNEL, reason: 'r' });
    expect(several.execution).toMatchObject({ state: 'failed', error: expect.stringContaining('network_interface_id: Pick the network interface') });
    const named = await asked('vs_request_firewall_add', { vs_id: 45, command: 'ACCEPT', address: '198.51.100.7', network_interface_id: '9', reason: 'r' });
    expect(shownRequest(messageOf(h, named))).toContain('"network_interface_id":"9"');
    expect(changePosts()).toEqual([]);
  });

  test('a workflow cannot confirm a rule that drops every address on port 22, nor add one to a server whose rules name no interface', async () => {
    const posted = h.slack.messagesIn(CHANNEL).length;
    const ssh = await runStep(h, 'vs_request_firewall_add', { vs_id: 42, command: 'DROP', port: '22', channel: CHANNEL, reason: 'lockdown' });
    expect(ssh.execution).toMatchObject({ state: 'failed', error: expect.stringContaining('ask for it with /vs firewall block') });
    const none = await runStep(h, 'vs_request_firewall_add', { vs_id: 43, command: 'DROP', address: '203.0.113.5', channel: CHANNEL, reason: 'r' });
    expect(none.execution).toMatchObject({
      state: 'failed',
      error: expect.stringContaining('VS 43 has no firewall rules, so its network interface is not known'),
    });
    expect(h.slack.messagesIn(CHANNEL)).toHaveLength(posted);
    // Named, the interface needs no rule to be known by.
    const named = await asked('vs_request_firewall_add', { vs_id: 43, command: 'DROP', address: '203.0.113.5', network_interface_id: '12', reason: 'r' });
    expect(shownRequest(messageOf(h, named))).toContain('"network_interface_id":"12"');
    expect(changePosts()).toEqual([]);
  });
});
