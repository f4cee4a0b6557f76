import { startHarness } from '../helpers/app-harness';
import { answerTo, CHANNEL, goodDisk, openForm, submit, visibleText } from '../helpers/drive';
import { waitFor } from '../helpers/wait';

// Reads cannot starve changes, end to end: with one connection for reads and
// one kept for changes, a slow read holds the read connection; another read
// waits its bound and is told it was not sent; a disk add goes out at once on
// the connection kept for changes and is applied (its look at the server's transactions first too: a change's reads
// are on the change connections).

test('a slow read holds the only read connection: the next read is not sent and says so, a disk add still runs', async () => {
  const h = await startHarness({ env: { VS_API_MAX_CONNECTIONS: '2', VS_API_CONNECTION_WAIT_MS: '100', VS_OPERATORS: 'UOPER', VS_API_TIMEOUT_MS: '5000' } });
  try {
    const view = await openForm(h, 'disk add 44', 'UOPER', CHANNEL);
    h.sandbox.setDelay(1500);
    const slow = answerTo(h, 'firewall 42', { user: 'UREADER' });
    // The slow read has its connection once the sandbox has it.
    await waitFor('the slow read to reach the sandbox', () => h.sandbox.requests.some((r) => r.path.includes('/42/')));
    const refused = await answerTo(h, 'firewall 43', { user: 'UOTHER' });
    expect(refused.response_type).toBe('ephemeral');
    expect(visibleText(refused)).toMatch(/was not sent and nothing changed/);
    const ack = await submit(h, 'disk_add', 'UOPER', view.private_metadata, goodDisk);
    // Two slow round trips on the change connection (the newest transaction, then the change): past the ack's budget.
    expect(visibleText(ack.view)).toMatch(/Scheduled|Working on it/);
    await waitFor('the change to be applied', async () => (await h.store.audit.latest(1))[0]?.outcome === 'scheduled', { within: 8000 });
    expect((await slow).response_type).toBe('in_channel');
    expect(h.sandbox.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /virtual_machines/42/firewall_rules.json',
      'GET /virtual_machines/44/transactions.json',
      'POST /virtual_machines/44/disks.json',
    ]);
  } finally {
    await h.close();
  }
});
