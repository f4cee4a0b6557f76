import { useHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, openForm, submit, visibleText } from '../helpers/drive';
import { input } from '../helpers/payloads';

// docs/product.md, One outcome: "A refusal for a missing role names who holds it now, as mentions (…; user groups, and
// at most five people), never a setting's name". Over the real app: a command refused before its form opens, a form
// refused at submission for what its values need (a reboot into the recovery image), and a role nobody holds.

/** A setting's name, which the person refused can do nothing with. */
const SETTING = /VS_[A-Z_]+/;

describe('a refusal for a missing role, with the roles configured', () => {
  const h = useHarness({
    env: { VS_ADMINS: 'SSRE,UADA', VS_OPERATORS: 'SONCALL,UOTTO,UOMAR', VS_VIEWERS: 'UVERA' },
    beforeEach: (h) => h.slack.setGroup('SONCALL', ['UGROUPIE']),
  });

  test('a viewer asking to reboot is told the role needed and who holds it now, as mentions, groups first; nothing opens', async () => {
    const m = await answerTo(h, 'reboot 42', { user: 'UVERA', channel: CHANNEL });
    expect(m.response_type).toBe('ephemeral');
    const text = visibleText(m);
    expect(text).toContain(
      'Rebooting a server needs the operator role; you are a viewer. Operators: <!subteam^SONCALL>, <@UOTTO>, <@UOMAR>. Admins: <!subteam^SSRE>, <@UADA>.',
    );
    expect(text).toContain('`/vs whoami` shows your role and what it allows.');
    expect(text).not.toMatch(SETTING);
    expect(h.slack.callsTo('views.open')).toEqual([]);
    expect((await h.store.audit.latest(1))[0]).toMatchObject({ userId: 'UVERA', action: 'power_reboot', outcome: 'refused' });
  });

  test('someone with no role asking to read is told who reads, and a read of the audit trail names the admins only', async () => {
    const read = visibleText(await answerTo(h, 'firewall 42', { user: 'USTRANGER', channel: CHANNEL }));
    expect(read).toContain('Reading server details needs the viewer role; you have no role. Viewers: <@UVERA>. Operators:');
    expect(read).not.toMatch(SETTING);
    const audit = visibleText(await answerTo(h, 'audit', { user: 'UOTTO', channel: CHANNEL }));
    expect(audit).toContain('Reading the audit trail needs the admin role; you are an operator. Admins: <!subteam^SSRE>, <@UADA>.');
    expect(audit).not.toMatch(SETTING);
  });

  test('an operator of the group sending a reboot into the recovery image is refused at submission, naming the admins', async () => {
    const view = await openForm(h, 'reboot 42', 'UGROUPIE');
    const ack = await submit(h, 'vs_power', 'UGROUPIE', view.private_metadata, {
      power_action: input.select('reboot_recovery'),
      confirm: input.text('42'),
      reason: input.text('kernel panic'),
    });
    const text = visibleText(ack);
    expect(text).toContain('Rebooting a server needs the admin role; you are an operator. Admins: <!subteam^SSRE>, <@UADA>.');
    expect(text).not.toMatch(SETTING);
  });
});

describe('a refusal for a role nobody holds', () => {
  const h = useHarness({ env: { VS_OPERATORS: 'UOTTO' } });

  test('says so plainly, and whom to ask, never the setting', async () => {
    const m = await answerTo(h, 'backup restore 9', { user: 'UOTTO', channel: CHANNEL });
    const text = visibleText(m);
    expect(text).toContain('Restoring a backup needs the admin role; you are an operator. Nobody holds the admin role yet; ask whoever runs the bot.');
    expect(text).not.toMatch(SETTING);
  });
});
