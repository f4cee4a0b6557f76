import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, parseCommand } from '../../../src/slack/listeners/commands';
import { EVENTS } from '../../../src/slack/listeners/events';
import { FUNCTIONS, manifestFunctions } from '../../../src/slack/listeners/functions';
import { functionsBlock } from '../../../scripts/manifest-functions';
import { appManifest } from '../../../src/local-mode';
import { SHORTCUTS } from '../../../src/slack/listeners/shortcuts';
import { readManifest, readYaml } from '@vs-chatops/slack-standin';

// The listener tables are the one source of what Slack is told: manifest.yml
// (the slash command, the global shortcuts, the events, the workflow steps)
// and the local page, which stands in for Slack's own menus, must
// name exactly what the tables register.

const root = join(__dirname, '../../..');
const manifest = readFileSync(join(root, 'manifest.yml'), 'utf8');
const page = readFileSync(join(root, 'packages/slack-standin/page/index.html'), 'utf8');
const pageScript = readFileSync(join(root, 'packages/slack-standin/page/app.js'), 'utf8');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const reference = readFileSync(join(root, 'docs', 'reference.md'), 'utf8');
const product = readFileSync(join(root, 'docs/product.md'), 'utf8');

/** The rows of the Markdown table under `header` (its first line), each as its cells. */
function tableRows(text: string, header: string): string[][] {
  const start = text.indexOf(header);
  if (start < 0) throw new Error(`no table headed ${header}`);
  const rows = text.slice(start).split('\n\n')[0]!.split('\n').slice(2);
  return rows.map((row) =>
    row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim()),
  );
}

/** The names a cell lists, what stands in parentheses left out: "`vs_id`, `port` (optional: `tcp`)" is vs_id and port. */
const namesIn = (cell: string): string[] => [...cell.replace(/\([^()]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);

/** The lines of one section one level down in the manifest (under features, oauth_config or settings), e.g. `shortcuts`. */
function section(name: string): string {
  const m = new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(manifest);
  if (!m) throw new Error(`manifest.yml has no ${name} under features, oauth_config or settings`);
  return m[1]!;
}

/** The items of a list in those lines (`- item`), comments left out. */
function listItems(lines: string, key?: string): string[] {
  const list = key === undefined ? lines : (new RegExp(`^\\s*${key}:\\n((?:\\s+(?:- |#).*\\n)*)`, 'm').exec(lines)?.[1] ?? '');
  return [...list.matchAll(/^\s*- (\S+)\s*$/gm)].map((m) => m[1]!);
}

describe('manifest.yml', () => {
  test('declares one slash command, /vs, whose usage hint names every subcommand of the table, in its order', () => {
    const commands = section('slash_commands');
    expect([...commands.matchAll(/- command: (\S+)/g)].map((m) => m[1])).toEqual(['/vs']);
    const hint = /usage_hint: '([^']*)'/.exec(commands)?.[1] ?? '';
    const items = hint.split('|').map((item) => item.trim());
    const named = items.map((item) => COMMANDS.find((row) => item === row.words.join(' ') || item.startsWith(`${row.words.join(' ')} `))?.kind);
    expect(named).not.toContain(undefined);
    expect([...new Set(named)]).toEqual(COMMANDS.map((row) => row.kind));
    // An item without placeholders is a command as typed: it must read as the row it names.
    for (const [i, item] of items.entries()) if (!/[[<]/.test(item)) expect(parseCommand(item).kind).toBe(named[i]);
  });

  test('declares exactly the global shortcuts of the table, with their names and descriptions', () => {
    expect(readManifest(manifest).shortcuts).toEqual(SHORTCUTS.map(({ name, callbackId, description }) => ({ name, type: 'global', callbackId, description })));
  });

  test('subscribes the bot to exactly the events of the table (and function_executed, for the steps), and asks for the scopes each row names', () => {
    expect(listItems(section('event_subscriptions'), 'bot_events')).toEqual([...EVENTS.map((row) => row.event), 'function_executed']);
    const scopes = listItems(section('scopes'), 'bot');
    for (const row of EVENTS) expect(scopes).toEqual(expect.arrayContaining([...row.scopes]));
  });

  test('names one unfurl domain, a host for the control-panel links link_shared unfurls, which the README says to replace', () => {
    expect(EVENTS.map((row) => row.event)).toContain('link_shared');
    const domains = listItems(section('unfurl_domains'));
    expect(domains).toHaveLength(1);
    expect(domains[0]).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
    expect(readme).toMatch(new RegExp(`replace \`${domains[0]!.replace(/\./g, '\\.')}\` under \`unfurl_domains\``));
  });

  test('turns on the Home tab that the app_home_opened row draws, and keeps the Messages tab read-only (the bot answers no DM)', () => {
    expect(EVENTS.map((row) => row.event)).toContain('app_home_opened');
    const appHome = section('app_home');
    expect(appHome).toMatch(/^ {4}home_tab_enabled: true$/m);
    expect(appHome).toMatch(/^ {4}messages_tab_read_only_enabled: true$/m);
  });
});

describe('manifest.yml and the workflow steps', () => {
  const parsed = readYaml(manifest) as { functions?: unknown; settings?: Record<string, unknown> };

  test('declares exactly the steps of the FUNCTIONS table, each with its title, description and typed inputs and outputs', () => {
    expect(parsed.functions).toEqual(manifestFunctions());
    expect(Object.keys(parsed.functions as object)).toEqual(FUNCTIONS.map((row) => row.callbackId));
  });

  test("each step's callback id, inputs and outputs are those of docs/product.md (Workflow steps), and README's table names every step", () => {
    const declared = manifestFunctions();
    const shape = Object.fromEntries(
      Object.entries(declared).map(([id, f]) => [
        id,
        { inputs: Object.keys(f.input_parameters.properties), required: f.input_parameters.required, outputs: Object.keys(f.output_parameters.properties) },
      ]),
    );
    const contract = new Map(
      tableRows(product, '| callback_id | does | inputs | outputs |').map(([id = '', , inputs = '', outputs = '']) => [
        namesIn(id)[0],
        { inputs: namesIn(inputs), required: namesIn(inputs).filter((name) => !inputs.includes(`\`${name}\` (optional`)), outputs: namesIn(outputs) },
      ]),
    );
    expect(contract.size).toBeGreaterThanOrEqual(FUNCTIONS.length);
    expect(shape).toEqual(Object.fromEntries(FUNCTIONS.map((row) => [row.callbackId, contract.get(row.callbackId)])));
    const inReadme = tableRows(reference, '| step (callback id) | inputs | outputs |').map(([step = '']) => /\(`([a-z_]+)`\)/.exec(step)?.[1]);
    expect(inReadme).toEqual(FUNCTIONS.map((row) => row.callbackId));
    expect(declared.vs_request_power!.input_parameters.properties.action!.enum).toEqual(['startup', 'shutdown', 'reboot', 'stop']);
    expect(declared.vs_request_disk!.input_parameters.properties.channel!.type).toBe('slack#/types/channel_id');
    expect(declared.vs_request_disk!.input_parameters.properties.disk_type!.enum).toEqual(['HDD', 'SSD']);
    expect(declared.vs_port_check!.output_parameters.properties.verdict!.enum).toEqual(['accepted', 'dropped', 'mixed', 'undecided']);
    expect(declared.vs_port_check!.input_parameters.properties.protocol!.enum).toEqual(['tcp', 'udp']);
  });

  test('every step reads each input it declares, and nothing else', () => {
    for (const row of FUNCTIONS) {
      const declared = manifestFunctions()[row.callbackId]!;
      expect(Object.keys(row.inputs)).toEqual(Object.keys(declared.input_parameters.properties));
      for (const [name, input] of Object.entries(row.inputs)) {
        // A required input left empty is refused by its name; an optional one is read as not given.
        const empty = input.schema.safeParse(undefined);
        expect(empty.success).toBe(input.optional);
        if (!empty.success) expect(empty.error.issues[0]!.message).toContain(name);
      }
    }
  });

  test('is written from the table by scripts/manifest-functions.ts, as it stands', () => {
    expect(manifest).toContain(`${functionsBlock()}\n`);
  });

  test('is org-ready with steps that run in the bot: org_deploy_enabled, function_runtime remote, function_executed', () => {
    expect(parsed.settings).toMatchObject({ org_deploy_enabled: true, function_runtime: 'remote' });
    expect(listItems(section('event_subscriptions'), 'bot_events')).toContain('function_executed');
  });
});

describe('the local page', () => {
  test("its stand-in learns the table's shortcuts and steps from manifest.yml, as local mode reads it (the shortcut menu, the Workflows panel)", () => {
    const app = appManifest();
    expect(app.shortcuts.map(({ callbackId, name }) => ({ callbackId, name }))).toEqual(SHORTCUTS.map(({ callbackId, name }) => ({ callbackId, name })));
    expect(app.functions).toEqual(manifestFunctions());
    expect(app.slashCommands.map((c) => c.command)).toEqual(['/vs']);
  });

  test('every command it suggests (the composer placeholder, "try /vs …") reads as a command', () => {
    const placeholder = /id="message"[^>]*placeholder="([^"]*)"/.exec(page)?.[1] ?? '';
    const suggested = [...`${placeholder}\n${pageScript}`.matchAll(/(?:^|[Tt]ry |· )\/vs ([a-z][a-z0-9 ]*[a-z0-9])/gm)].map((m) => m[1]!.trim());
    expect(suggested).toEqual(expect.arrayContaining(['firewall 42', 'help']));
    for (const text of suggested) expect(parseCommand(text).kind).not.toBe('invalid');
  });
});
