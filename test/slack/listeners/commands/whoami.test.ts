import { COMMANDS } from '../../../../src/slack/listeners/commands';
import { useHarness } from '../../../helpers/app-harness';
import { answerTo, visibleText } from '../../../helpers/drive';

// `/vs whoami` (docs/product.md, The slash command): the person's role and what it allows: every read command the role
// may use, by name, read off the command table (a new read is listed without more), then the changes.

const ENV = { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER', VS_VIEWERS: 'UVIEWER' };

/** The command table's reads, by the words people type, and the read each needs. */
const reads = COMMANDS.flatMap((row) =>
  'needs' in row && (row.needs === 'read' || row.needs === 'audit_read') ? [{ row, typed: `/vs ${row.words.join(' ')}` }] : [],
);

describe('/vs whoami', () => {
  const h = useHarness({ env: ENV });

  test('a viewer is told every read command of the table by name, not the audit trail, and no change', async () => {
    const m = await answerTo(h, 'whoami', { user: 'UVIEWER' });
    expect(m.response_type).toBe('ephemeral');
    const text = visibleText(m);
    expect(reads.filter(({ row }) => row.needs === 'read').length).toBeGreaterThanOrEqual(6);
    for (const { row, typed } of reads) {
      if (row.needs === 'read') expect(text).toContain(`\`${typed}\``);
      else expect(text).not.toContain(`\`${typed}\``);
    }
    expect(text).toContain('your role is *viewer*');
    expect(text).not.toContain('You may also');
  });

  test('an admin is told the audit trail among the reads, then the changes and the freeze', async () => {
    const text = visibleText(await answerTo(h, 'whoami', { user: 'UADMIN' }));
    for (const { typed } of reads) expect(text).toContain(`\`${typed}\``);
    expect(text).toMatch(/You may also: add a disk to a server; restore a disk from a backup; .*freeze and unfreeze every change/);
  });

  test('someone with no role is told so, and whom to ask, in words', async () => {
    const text = visibleText(await answerTo(h, 'whoami', { user: 'USTRANGER' }));
    expect(text).toContain('You may not use the read commands; ask whoever runs the bot for a role.');
    expect(text).not.toMatch(/VS_[A-Z]/);
  });
});
