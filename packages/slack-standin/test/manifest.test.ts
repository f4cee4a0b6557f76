import { request } from 'undici';
import { readManifest } from '../src/manifest';
import { useStandInWithBot } from './with-bot';

// The stand-in learns the app from its manifest, as Slack does: the slash commands the composer sends, the shortcut
// menu the page draws, the workflow steps it runs. A shortcut or command the manifest does not declare never
// reaches the app.

const MANIFEST = `
display_information:
  name: an app
features:
  slash_commands:
    - command: /ops
      description: Operate
      usage_hint: 'status | help'
  shortcuts:
    - name: Reboot a server
      type: global
      callback_id: reboot_shortcut
      description: Opens the reboot form
    - name: Quote this message
      type: message
      callback_id: quote_shortcut
      description: Quotes it
functions:
  check:
    title: Check
    description: Checks a server
    input_parameters:
      properties:
        vs_id:
          type: integer
          title: Server id
      required:
        - vs_id
    output_parameters:
      properties:
        summary:
          type: string
          title: Summary
`;

describe('readManifest', () => {
  test('reads the slash commands, the shortcuts and the workflow steps', () => {
    expect(readManifest(MANIFEST)).toEqual({
      slashCommands: [{ command: '/ops', description: 'Operate', usageHint: 'status | help' }],
      shortcuts: [
        { name: 'Reboot a server', type: 'global', callbackId: 'reboot_shortcut', description: 'Opens the reboot form' },
        { name: 'Quote this message', type: 'message', callbackId: 'quote_shortcut', description: 'Quotes it' },
      ],
      functions: {
        check: {
          title: 'Check',
          description: 'Checks a server',
          input_parameters: { properties: { vs_id: { type: 'integer', title: 'Server id' } }, required: ['vs_id'] },
          output_parameters: { properties: { summary: { type: 'string', title: 'Summary' } } },
        },
      },
    });
  });

  test('a manifest without features or functions declares nothing', () => {
    expect(readManifest('display_information:\n  name: bare\n')).toEqual({ slashCommands: [], shortcuts: [], functions: {} });
  });

  test.each([
    ['a shortcut without its callback id', MANIFEST.replace('      callback_id: reboot_shortcut\n', ''), 'features.shortcuts[0].callback_id must be text'],
    ['a shortcut of another type', MANIFEST.replace('type: global', 'type: workflow'), 'features.shortcuts[0].type must be global or message'],
    ['a command without its slash', MANIFEST.replace('command: /ops', 'command: ops'), 'features.slash_commands[0].command must be a slash and a name'],
    ['a parameter without its type', MANIFEST.replace('          type: integer\n', ''), 'functions.check.input_parameters.properties.vs_id.type must be text'],
    ['YAML it does not read', `${MANIFEST}\nfeatures: {}\n`, 'manifest.yml line'],
  ])('refuses %s, naming it', (_what, source, message) => {
    expect(() => readManifest(source)).toThrow(message);
  });
});

describe('a stand-in told the manifest', () => {
  const slack = useStandInWithBot({ botToken: 'xoxb-manifest-test', signingSecret: 'shh', page: true, manifest: readManifest(MANIFEST) });
  const local = async (path: string, body?: Record<string, unknown>) => {
    const res = await request(`${slack.standIn.origin}${path}`, {
      method: body ? 'POST' : 'GET',
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.body.json()) as Record<string, unknown>;
  };

  test('gives the page its global shortcuts (the menu) and its steps (the Workflows panel)', async () => {
    const state = await local('/local/state');
    expect(state.shortcuts).toEqual([{ callbackId: 'reboot_shortcut', name: 'Reboot a server', description: 'Opens the reboot form' }]);
    expect(Object.keys(state.functions as object)).toEqual(['check']);
  });

  test('delivers a declared global shortcut, and refuses any other without sending the app anything', async () => {
    expect((await slack.standIn.shortcut('U0OPERATOR', 'reboot_shortcut')).status).toBe(200);
    expect(JSON.parse(new URLSearchParams(slack.received[0]!.body).get('payload')!)).toMatchObject({ type: 'shortcut', callback_id: 'reboot_shortcut' });
    for (const callbackId of ['quote_shortcut', 'disk_add_shortcut']) {
      expect(await slack.standIn.shortcut('U0OPERATOR', callbackId)).toMatchObject({ error: 'unknown_shortcut' });
      expect(await local('/local/shortcut', { user: 'U0OPERATOR', callbackId, channel: 'C0INCIDENT' })).toEqual({ ok: false, error: 'unknown_shortcut' });
    }
    expect(slack.received).toHaveLength(1);
  });

  test('sends a declared slash command, typed with or without it, and refuses another as Slack does', async () => {
    expect(await local('/local/command', { user: 'U0VIEWER', channel: 'C0INCIDENT', text: '/ops status' })).toEqual({ ok: true });
    expect(await local('/local/command', { user: 'U0VIEWER', channel: 'C0INCIDENT', text: 'help' })).toEqual({ ok: true });
    expect(slack.received.map((r) => Object.fromEntries(new URLSearchParams(r.body)))).toMatchObject([
      { command: '/ops', text: 'status' },
      { command: '/ops', text: 'help' },
    ]);
    expect(await local('/local/command', { user: 'U0VIEWER', channel: 'C0INCIDENT', text: '/vs firewall 42' })).toEqual({
      ok: false,
      error: '/vs is not a valid command',
    });
    expect(slack.received).toHaveLength(2);
  });
});
