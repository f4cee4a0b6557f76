import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { AuditEntry } from '../../../../src/store';
import { startHarness, useHarnessBehindFaults } from '../../../helpers/app-harness';
import { reply } from '../../../helpers/cloud-fault-server';
import { CHANNEL } from '../../../helpers/drive';
import { buttonClick } from '../../../helpers/payloads';
import { waitFor } from '../../../helpers/wait';
import { entry as storeEntry } from '../../../store/contract/entries';

// Export CSV over the real Bolt app (docs/product.md, Long lists): a signed click on firewall_export or audit_export,
// the list read whole (the sandbox's rules, the bot's own audit trail), and the file uploaded through Slack's upload
// API to the clicker's direct messages, as the stand-in records it: conversations.open, files.getUploadURLExternal,
// the bytes at the upload URL, files.completeUploadExternal; the file read back from the DM's download link.

type Message = { response_type?: string; replace_original?: boolean; text?: string; blocks?: unknown[] };

const { h, fault } = useHarnessBehindFaults({ env: { VS_ADMINS: 'UADMIN', VS_OPERATORS: 'UOPER', VS_VIEWERS: 'UVIEWER' } });

let clicks = 0;
/** Clicks an Export CSV button as `user`; returns what they were told where they clicked. */
async function exportAs(user: string, actionId: string, value: string): Promise<string> {
  const id = `export${++clicks}`;
  const res = await h.interact(buttonClick({ user, channel: CHANNEL, actionId, value, responseUrl: h.slack.responseUrl(id) }));
  expect(res.status).toBe(200);
  const told = await waitFor(`the answer to ${actionId}`, () => h.slack.responses.find((r) => r.id === id), { within: 10_000 });
  expect((told.body as Message).response_type).toBe('ephemeral');
  return JSON.stringify(told.body);
}

/** The file the person got in their DM with the bot: the message that shares it, and its content as downloaded. */
async function fileInDm(user: string): Promise<{ comment: string; name: string; csv: string }> {
  const [open] = h.slack.callsTo('conversations.open');
  expect(open).toMatchObject({ ok: true, args: { users: user } });
  const dm = h.slack.state.channels.find((c) => c.dmWith === user)!;
  const [complete] = h.slack.callsTo('files.completeUploadExternal');
  expect(complete).toMatchObject({ ok: true, args: { channel_id: dm.id } });
  const [message] = h.slack.messagesIn(dm.id, user).slice(-1);
  const [file] = message!.files!;
  // Downloaded as the DM shows it: by its link.
  const download = await request(file!.url_private_download);
  expect(download.statusCode).toBe(200);
  expect(download.headers['content-disposition']).toContain(`filename="${file!.name}"`);
  return { comment: message!.text, name: file!.name, csv: await download.body.text() };
}

/** RFC 4180, read independently of the writer: rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (quoted && c === '"') quoted = false;
    else if (quoted) cell += c;
    else if (c === '"') quoted = true;
    else if (c === ',') endCell();
    else if (c === '\r' && text[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += c;
  }
  return rows;
}

const rule = (i: number, o: Record<string, unknown> = {}) => ({
  firewall_rule: { id: i, network_interface_id: 1, position: i, address: null, port: '443', protocol: 'TCP', command: 'ACCEPT', description: null, ...o },
});

describe('Export CSV of firewall rules', () => {
  test('the whole list, every page of it, as a CSV file in the clicker’s DM; they are told where it went', async () => {
    const told = await exportAs('UVIEWER', 'firewall_export', '45');
    expect(told).toContain('Sent the firewall rules of VS 45 as a CSV file to your direct messages with the bot: 300 rules.');
    const { comment, name, csv } = await fileInDm('UVIEWER');
    expect(name).toMatch(/^vs-45-firewall-rules-\d{4}-\d\d-\d\d-\d\d-\d\d\.csv$/);
    expect(comment).toMatch(/^:page_facing_up: The firewall rules of VS 45: 300 rules, as of <!date\^\d+\^/);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([
      'network_interface_id',
      'position',
      'command',
      'protocol',
      'address',
      'port',
      'source_port',
      'destination_ip',
      'enabled',
      'enable_logging',
      'description',
      'id',
    ]);
    expect(rows).toHaveLength(301);
    // In the summary's order: by interface, then position.
    const keys = rows.slice(1).map((r) => Number(r[0]) * 1000 + Number(r[1]));
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    // The upload went as Slack's API asks: a URL for the announced length, then the bytes there.
    expect(h.slack.callsTo('files.getUploadURLExternal')[0]!.args).toMatchObject({ filename: name, length: String(Buffer.byteLength(csv)) });
  });

  test('cells from the cloud API cannot run as formulas, and commas, quotes and line breaks stay in their cell', async () => {
    const hostile = [
      '=HYPERLINK("http://evil.example","x")',
      '+1+1',
      '-2+3',
      '@SUM(A1:A2)',
      '\t=1',
      '  =1+1',
      '\uFF1DHYPERLINK("http://evil.example")',
      '\u3000\uFF0B1',
      '\u200B@SUM(A1)',
      'a, b',
      'say "hi"',
      'two\nlines',
      'plain',
    ];
    fault.handle((req, res) =>
      req.url.includes('/virtual_machines/42/firewall_rules')
        ? reply(res, 200, JSON.stringify(hostile.map((description, i) => rule(i + 1, { description }))))
        : reply(res, 404, '{}'),
    );
    await exportAs('UVIEWER', 'firewall_export', '42');
    const descriptions = parseCsv((await fileInDm('UVIEWER')).csv)
      .slice(1)
      .map((r) => r[10]);
    expect(descriptions).toEqual([
      `'=HYPERLINK("http://evil.example","x")`,
      "'+1+1",
      "'-2+3",
      "'@SUM(A1:A2)",
      "'\t=1",
      "'  =1+1",
      `'\uFF1DHYPERLINK("http://evil.example")`,
      "'\u3000\uFF0B1",
      "'\u200B@SUM(A1)",
      'a, b',
      'say "hi"',
      'two\nlines',
      'plain',
    ]);
  });

  test('a list longer than 10,000 rows is cut there, and both the message and the DM say so', async () => {
    const rules = JSON.stringify(Array.from({ length: 10_005 }, (_, i) => rule(i + 1)));
    fault.handle((req, res) => (req.url.includes('/virtual_machines/42/firewall_rules') ? reply(res, 200, rules) : reply(res, 404, '{}')));
    expect(await exportAs('UVIEWER', 'firewall_export', '42')).toContain('10,000 rules (the first 10,000 rules of 10,005 rules)');
    const { comment, csv } = await fileInDm('UVIEWER');
    expect(comment).toContain('It holds the first 10,000 rules of 10,005 rules: an export stops at 10,000 rows.');
    expect(parseCsv(csv)).toHaveLength(10_001);
  });

  test('a server the cloud does not know is said so, and nothing is uploaded', async () => {
    expect(await exportAs('UVIEWER', 'firewall_export', '999')).toContain('VS 999 was not found');
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });

  test('Slack refusing the upload (the app lacks files:write) is told with what to do', async () => {
    h.slack.fault('files.getUploadURLExternal', { error: 'missing_scope' });
    expect(await exportAs('UVIEWER', 'firewall_export', '42')).toContain('The app needs the files:write and im:write scopes');
    expect(h.slack.callsTo('files.completeUploadExternal')).toEqual([]);
  });

  test('an upload URL that is not Slack’s gets no bytes', async () => {
    const elsewhere: string[] = [];
    const trap = createServer((req, res) => {
      elsewhere.push(req.url ?? '');
      res.end('OK');
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    try {
      const port = (trap.address() as AddressInfo).port;
      h.slack.on('files.getUploadURLExternal', () => ({ body: { ok: true, upload_url: `http://127.0.0.1:${port}/upload/v1/x`, file_id: 'F0TRAP' } }));
      expect(await exportAs('UVIEWER', 'firewall_export', '42')).toContain('The CSV file could not be sent to your direct messages');
      expect(elsewhere).toEqual([]);
      expect(h.slack.callsTo('files.completeUploadExternal')).toEqual([]);
      expect(h.logs.join('\n')).not.toContain(`127.0.0.1:${port}`);
    } finally {
      await new Promise((resolve) => trap.close(resolve));
    }
  });
});

describe('Export CSV of backups', () => {
  const BACKUP_HEADER = [
    'id',
    'built_at',
    'created_at',
    'backup_type',
    'initiated',
    'backup_size',
    'disk_id',
    'target_type',
    'target_id',
    'built',
    'locked',
    'marked_for_delete',
    'usable',
    'not_usable_because',
    'min_disk_size',
    'min_memory_size',
    'template_id',
    'operating_system',
    'operating_system_distro',
    'note',
  ];
  const column = (rows: string[][], name: string) => rows.slice(1).map((r) => r[BACKUP_HEADER.indexOf(name)]);

  test('a viewer gets every backup of the server, newest first, usable or why not, in their DM', async () => {
    const told = await exportAs('UVIEWER', 'backups_export', '42');
    expect(told).toContain('Sent the backups of VS 42 as a CSV file to your direct messages with the bot: 3 backups.');
    const { comment, name, csv } = await fileInDm('UVIEWER');
    expect(name).toMatch(/^vs-42-backups-\d{4}-\d\d-\d\d-\d\d-\d\d\.csv$/);
    expect(comment).toMatch(/^:page_facing_up: The backups of VS 42: 3 backups, as of <!date\^\d+\^/);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual(BACKUP_HEADER);
    // The sandbox's VS 42 (packages/cloud-sandbox/README.md): 9 incremental, 12 marked for deletion, 15 normal of disk 101.
    expect(column(rows, 'id')).toEqual(['9', '15', '12']);
    expect(column(rows, 'usable')).toEqual(['true', 'true', 'false']);
    expect(column(rows, 'not_usable_because')).toEqual(['', '', 'marked for deletion']);
    expect(column(rows, 'disk_id')).toEqual(['101', '101', '101']);
    const taken = column(rows, 'built_at') as string[];
    for (const at of taken) expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(taken).toEqual([...taken].sort().reverse());
  });

  test('only the named fields of a backup reach the file, whatever else the cloud sends; no cell runs as a formula', async () => {
    const secrets = ['hunter2-root-password', 'iqn.2026-03.example:secret-target', 'backup-identifier-xyz', 'vault-token-123'];
    const backups = Array.from({ length: 12 }, (_, i) => ({
      backup: {
        id: 200 + i,
        built: true,
        built_at: `2026-03-${String(10 + i).padStart(2, '0')}T02:00:00+01:00`,
        backup_size: 1024,
        disk_id: 101,
        note: i === 11 ? '=HYPERLINK("http://evil.example","x")' : null,
        initial_root_password: secrets[0],
        iqn: secrets[1],
        identifier: secrets[2],
        password: secrets[3],
      },
    }));
    fault.handle((req, res) => (req.url.startsWith('/virtual_machines/42/backups') ? reply(res, 200, JSON.stringify(backups)) : reply(res, 404, '{}')));
    await exportAs('UVIEWER', 'backups_export', '42');
    const { csv } = await fileInDm('UVIEWER');
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual(BACKUP_HEADER);
    expect(rows.slice(1).every((r) => r.length === BACKUP_HEADER.length)).toBe(true);
    // Newest first, in UTC: 2026-03-21T02:00+01:00 is 01:00 UTC.
    expect(column(rows, 'id')).toEqual(Array.from({ length: 12 }, (_, i) => String(211 - i)));
    expect(column(rows, 'built_at')[0]).toBe('2026-03-21T01:00:00.000Z');
    expect(column(rows, 'note')[0]).toBe(`'=HYPERLINK("http://evil.example","x")`);
    for (const secret of secrets) {
      expect(csv).not.toContain(secret);
      expect(h.logs.join('\n')).not.toContain(secret);
    }
  });

  test('without the read role (VS_VIEWERS set) neither the export nor a page of the list is served, and the cloud is not asked', async () => {
    expect(await exportAs('UNOBODY', 'backups_export', '42')).toMatch(/needs the viewer role/);
    expect(await exportAs('UNOBODY', 'backups_page_next', '42:2')).toMatch(/needs the viewer role/);
    expect(fault.requests).toEqual([]);
    expect(h.slack.callsTo('conversations.open')).toEqual([]);
  });

  test('a button value not made by the list is out of date: nothing is read or uploaded', async () => {
    for (const value of ['42:2', '0', 'VS 42', '{"vs":42}'])
      expect(await exportAs('UVIEWER', 'backups_export', value)).toContain('That button is out of date; run `/vs backups &lt;vs_id&gt;` again.');
    expect(fault.requests).toEqual([]);
    expect(h.slack.callsTo('conversations.open')).toEqual([]);
  });

  test('a server without backups has nothing to export, and is told so', async () => {
    expect(await exportAs('UVIEWER', 'backups_export', '43')).toContain('There is nothing to export: the backups of VS 43 is empty now.');
    expect(h.slack.callsTo('files.getUploadURLExternal')).toEqual([]);
  });
});

describe('Export CSV of the audit trail', () => {
  const entry = (o: Partial<AuditEntry>): AuditEntry => storeEntry({ at: new Date().toISOString(), channelId: CHANNEL, ...o });

  test('an admin gets every record matching the list’s filter, newest first, every field', async () => {
    for (let i = 0; i < 3; i++) await h.store.audit.record(entry({ userId: 'UOPER', target: 'vs:42', detail: `=cmd|' /C calc'!A${i}` }));
    await h.store.audit.record(entry({ userId: 'UOPER', target: 'vs:43' }));
    const told = await exportAs('UADMIN', 'audit_export', JSON.stringify({ f: { kind: 'vs', id: 42 } }));
    expect(told).toContain('Sent the audit records of VS 42 as a CSV file to your direct messages with the bot: 3 records.');
    const rows = parseCsv((await fileInDm('UADMIN')).csv);
    expect(rows[0]!.slice(0, 7)).toEqual(['id', 'at', 'user_id', 'channel_id', 'action', 'target', 'outcome']);
    expect(rows.slice(1).map((r) => r[5])).toEqual(['vs:42', 'vs:42', 'vs:42']);
    const ids = rows.slice(1).map((r) => Number(r[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(rows[1]![9]).toBe(`'=cmd|' /C calc'!A2`);
  });

  test('is for admins only: an operator is refused and nothing is read or uploaded', async () => {
    expect(await exportAs('UOPER', 'audit_export', '{}')).toContain('Reading the audit trail needs the admin role; you are an operator.');
    expect(h.slack.callsTo('conversations.open')).toEqual([]);
  });

  test('a button value not made by the list is out of date, not obeyed', async () => {
    expect(await exportAs('UADMIN', 'audit_export', '{"f":{"kind":"sql","q":"1=1"}}')).toContain('That button is out of date');
    expect(h.slack.callsTo('conversations.open')).toEqual([]);
  });
});

test('an export and a page of a list are reads: past the per-person limit they are refused and nothing is uploaded', async () => {
  const limited = await startHarness({ env: { VS_READS_PER_USER_PER_MINUTE: '1' } });
  try {
    const click = async (id: string, actionId: string, value: string) => {
      await limited.interact(buttonClick({ user: 'UVIEWER', channel: CHANNEL, actionId, value, responseUrl: limited.slack.responseUrl(id) }));
      return JSON.stringify((await waitFor(`the answer ${id}`, () => limited.slack.responses.find((r) => r.id === id), { within: 10_000 })).body);
    };
    expect(await click('first', 'backups_export', '42')).toContain('Sent the backups of VS 42');
    for (const [actionId, value] of [
      ['firewall_export', '42'],
      ['backups_export', '42'],
      ['backups_page_next', '42:2'],
    ] as const)
      expect(await click(`again-${actionId}`, actionId, value)).toContain('You have asked for 1 reads in the last minute');
    expect(limited.slack.callsTo('files.completeUploadExternal')).toHaveLength(1);
    expect(limited.sandbox.requests).toHaveLength(1);
  } finally {
    await limited.close();
  }
});
