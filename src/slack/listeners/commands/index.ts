import { CHANGES } from '../../../changes';
import type { AllMiddlewareArgs, Context, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { AuditFilter } from '../../../changes/audit-filter';
import { PORT_QUESTION_EXAMPLES, PORT_QUESTION_USAGE } from '../../blocks/grammar';
import { MiddlewareMissingError } from '../../errors';
import { agentRevokeArguments, agentRevokeCommand, agentTokenArguments, agentTokenCommand, agentTokensCommand } from './agents';
import { auditCommand } from './audit';
import { breakGlassCommand, endBreakGlassCommand } from './break-glass';
import { BREAK_GLASS_REASON_MAX_LENGTH } from '../../../changes';
import { onCallCommand } from './oncall';
import { autoscalingCommand } from './autoscaling';
import { backupsCommand } from './backups';
import { disksCommand } from './disks';
import { firewallCommand } from './firewall';
import { freezeCommand, unfreezeCommand } from './freeze';
import {
  mayNameServer,
  auditArguments,
  backupId,
  findRow,
  freeText,
  none,
  serverId,
  serverIdAndFirewallRule,
  serverIdAndPortQuestion,
  serverIdAndRuleId,
  tokenize,
  unknownCommand,
  type Refusal,
} from './grammar';
import { serverByName } from './server-by-name';
import { helpCommand } from './help';
import { HELP_GROUPS, type HelpSection, type ReadCommand } from '../../blocks/messages';
import { openRestorePicker } from './open-change-form';
import { serverCommand, type ServerChange } from './server';
import { helpGroupOf, subcommand, type CommandOf, type Reading } from './subcommand';
import { templatesCommand } from './templates';
import { usageCommand } from './usage';
import { whoamiCommand } from './whoami';
import {
  everyServerEvents,
  quietHoursArgument,
  serverIdAndEvents,
  unwatchAllCommand,
  unwatchCommand,
  watchAllCommand,
  watchCommand,
  watchesCommand,
  watchQuietCommand,
} from './watch';

// The table of `/vs` subcommands: one row each, with its words, its argument
// grammar, its usage and help, what it needs (checked by the needs middleware
// before it runs) and what runs it. The parser walks the rows in order and the
// `Command` type is read off them; `/vs help` lists their help lines in the
// same order. To add a subcommand: a row below (and its listener beside this
// file); manifest.yml's usage hint is checked against the rows by
// test/slack/listeners/manifest.test.ts.

export const AUDIT_DEFAULT_LIMIT = 10;
export const AUDIT_MAX_LIMIT = 50;
export const TEMPLATE_FILTER_MAX_LENGTH = 100;
export const FREEZE_REASON_MAX_LENGTH = 200;

export const COMMANDS = [
  subcommand({
    kind: 'server',
    words: ['server'],
    aliases: ['status'],
    nicknames: ['servers', 'vs', 'info', 'show', 'state'],
    argument: serverId,
    usage: '/vs server <vs_id>',
    example: '/vs server 42',
    help: ['`/vs server <vs_id>` (or `/vs status`): the server at a glance: power, lock, disks, latest backups and transactions'],
    needs: 'read',
    run: (ctx, req, args) => serverCommand(ctx, req, args, SERVER_CHANGES),
  }),
  // Before `firewall`: the longer spelling wins, so that `/vs firewall remove 42 17` is not read as a port question.
  subcommand({
    kind: 'firewall_remove',
    words: ['firewall', 'remove'],
    nicknames: ['firewall delete', 'fw remove', 'remove rule'],
    argument: serverIdAndRuleId,
    usage: '/vs firewall remove <vs_id> <rule_id>',
    example: '/vs firewall remove 42 17',
    help: ["`/vs firewall remove <vs_id> <rule_id>`: remove a firewall rule and apply the server's rules (admins)"],
    opens: 'firewall_remove',
    targetId: ({ vsId }) => vsId,
    given: ({ ruleId }) => ({ rule_id: String(ruleId) }),
  }),
  subcommand({
    kind: 'firewall_block',
    words: ['firewall', 'block'],
    nicknames: ['firewall drop', 'fw block', 'block'],
    argument: serverIdAndFirewallRule,
    usage: '/vs firewall block <vs_id> <address> [port[/tcp|/udp]]',
    example: '/vs firewall block 42 203.0.113.5 443',
    help: ['`/vs firewall block <vs_id> <address> [port[/tcp|/udp]]`: add a DROP rule, saying first whether it would take effect (operators, admins)'],
    opens: 'firewall_add',
    targetId: ({ vsId }) => vsId,
    given: ({ address, port, protocol }) => ({ command: 'DROP', address, port, protocol }),
  }),
  subcommand({
    kind: 'firewall_allow',
    words: ['firewall', 'allow'],
    nicknames: ['firewall accept', 'fw allow', 'allow'],
    argument: serverIdAndFirewallRule,
    usage: '/vs firewall allow <vs_id> <address> [port[/tcp|/udp]]',
    example: '/vs firewall allow 42 198.51.100.0/24 22',
    help: ['`/vs firewall allow <vs_id> <address> [port[/tcp|/udp]]`: add an ACCEPT rule, the same way (operators, admins)'],
    opens: 'firewall_add',
    targetId: ({ vsId }) => vsId,
    given: ({ address, port, protocol }) => ({ command: 'ACCEPT', address, port, protocol }),
  }),
  subcommand({
    kind: 'firewall',
    words: ['firewall'],
    nicknames: ['fw', 'rules', 'firewall_rules', 'firewalls'],
    argument: serverIdAndPortQuestion,
    usage: '/vs firewall <vs_id> [<port>[/tcp|/udp] [from <ip>]]',
    example: '/vs firewall 42',
    help: [
      '`/vs firewall <vs_id>`: the firewall rules of a server',
      `\`${PORT_QUESTION_USAGE}\`: does that traffic reach the server? e.g. ${PORT_QUESTION_EXAMPLES}`,
    ],
    needs: 'read',
    run: firewallCommand,
  }),
  subcommand({
    kind: 'autoscaling',
    words: ['autoscaling'],
    aliases: ['as'],
    nicknames: ['autoscale', 'scaling', 'auto_scaling'],
    argument: serverId,
    usage: '/vs autoscaling <vs_id>',
    example: '/vs autoscaling 42',
    help: ['`/vs autoscaling <vs_id>` (or `/vs as`): its autoscaling rules'],
    needs: 'read',
    run: autoscalingCommand,
  }),
  subcommand({
    kind: 'disks',
    words: ['disks'],
    nicknames: ['volumes', 'drives'],
    argument: serverId,
    usage: '/vs disks <vs_id>',
    example: '/vs disks 42',
    help: ['`/vs disks <vs_id>`: its disks: size, type, primary or swap, mount point, built, locked'],
    needs: 'read',
    run: disksCommand,
  }),
  subcommand({
    kind: 'backups',
    words: ['backups'],
    nicknames: ['snapshots', 'backup list', 'list backups'],
    argument: serverId,
    usage: '/vs backups <vs_id>',
    example: '/vs backups 42',
    help: ['`/vs backups <vs_id>`: its backups, newest first: when, size, type, disk, usable or not'],
    needs: 'read',
    run: backupsCommand,
  }),
  subcommand({
    kind: 'templates',
    words: ['templates'],
    nicknames: ['template', 'images', 'os'],
    argument: freeText({ what: 'filter', max: TEMPLATE_FILTER_MAX_LENGTH }, (filter) => ({ filter })),
    usage: '/vs templates [text]',
    example: '/vs templates ubuntu',
    help: ['`/vs templates [text]`: the template catalogue, filtered by text'],
    needs: 'read',
    run: templatesCommand,
  }),
  subcommand({
    kind: 'disk_add',
    words: ['disk', 'add'],
    nicknames: ['disk', 'add', 'add disk', 'disks add', 'adddisk'],
    argument: serverId,
    usage: '/vs disk add <vs_id>',
    example: '/vs disk add 42',
    help: ['`/vs disk add <vs_id>`: add a disk (operators, admins)'],
    opens: 'disk_add',
    targetId: ({ vsId }) => vsId,
  }),
  subcommand({
    kind: 'backup_restore',
    words: ['backup', 'restore'],
    nicknames: ['backup', 'restore backup', 'backups restore'],
    argument: backupId,
    usage: '/vs backup restore <backup_id>',
    example: '/vs backup restore 9',
    help: ['`/vs backup restore <backup_id>`: restore a backup onto its disk (admins)'],
    opens: 'backup_restore',
    targetId: ({ backupId }) => backupId,
  }),
  subcommand({
    kind: 'restore',
    words: ['restore'],
    nicknames: ['restores', 'rollback'],
    argument: serverId,
    usage: '/vs restore <vs_id>',
    example: '/vs restore 42',
    help: ['`/vs restore <vs_id>`: pick one of its usable backups, newest first, and restore it (admins)'],
    opens: 'backup_restore',
    // A server, whose backup the form picks: the restore's own target, the backup, is the one picked.
    about: 'vs',
    targetId: ({ vsId }) => vsId,
    open: (ctx, req, vsId) => openRestorePicker(ctx, req, vsId),
  }),
  subcommand({
    kind: 'backup_take',
    words: ['backup', 'take'],
    nicknames: ['take backup', 'backup now', 'snapshot'],
    argument: serverId,
    usage: '/vs backup take <vs_id>',
    example: '/vs backup take 42',
    help: ['`/vs backup take <vs_id>`: take a backup of one of its built disks now (operators, admins)'],
    opens: 'backup_take',
    targetId: ({ vsId }) => vsId,
  }),
  // The power actions (docs/product.md, Power actions): each opens the power form once the server has been read.
  subcommand({
    kind: 'power_start',
    words: ['start'],
    // Not `startup`: it is a near miss of `status`, a read, and a suggestion never turns a read into a change.
    nicknames: ['boot', 'poweron'],
    argument: serverId,
    usage: '/vs start <vs_id>',
    example: '/vs start 42',
    help: ['`/vs start <vs_id>`: start a server (operators, admins)'],
    opens: 'power_start',
    targetId: ({ vsId }) => vsId,
  }),
  subcommand({
    kind: 'power_shutdown',
    words: ['shutdown'],
    nicknames: ['shut', 'poweroff'],
    argument: serverId,
    usage: '/vs shutdown <vs_id>',
    example: '/vs shutdown 42',
    help: ['`/vs shutdown <vs_id>`: shut a server down, gracefully (operators, admins)'],
    opens: 'power_shutdown',
    targetId: ({ vsId }) => vsId,
  }),
  subcommand({
    kind: 'power_reboot',
    words: ['reboot'],
    nicknames: ['restart', 'reset'],
    argument: serverId,
    usage: '/vs reboot <vs_id>',
    example: '/vs reboot 42',
    help: ['`/vs reboot <vs_id>`: reboot a server (operators, admins; into the recovery image: admins)'],
    opens: 'power_reboot',
    targetId: ({ vsId }) => vsId,
  }),
  subcommand({
    kind: 'power_stop',
    words: ['stop'],
    nicknames: ['kill', 'forcestop'],
    argument: serverId,
    usage: '/vs stop <vs_id>',
    example: '/vs stop 42',
    help: ['`/vs stop <vs_id>`: force a server off (admins)'],
    opens: 'power_stop',
    targetId: ({ vsId }) => vsId,
  }),
  subcommand({
    kind: 'whoami',
    words: ['whoami'],
    nicknames: ['who', 'me', 'role', 'whoami?'],
    argument: none,
    usage: '/vs whoami',
    example: '/vs whoami',
    help: ['`/vs whoami`: your role and what it allows'],
    needs: 'everyone',
    run: (ctx, req) => whoamiCommand(ctx, req, READ_COMMANDS),
  }),
  subcommand({
    kind: 'oncall',
    words: ['oncall'],
    nicknames: ['on-call', 'pager', 'pagerduty', 'rota'],
    argument: none,
    usage: '/vs oncall',
    example: '/vs oncall',
    help: ['`/vs oncall`: who is on call now (PagerDuty) and what that grants'],
    needs: 'read',
    run: onCallCommand,
  }),
  // `end` first: the longer spelling wins, so that `/vs breakglass end` closes a window rather than opening one.
  subcommand({
    kind: 'breakglass_end',
    words: ['breakglass', 'end'],
    changes: true,
    nicknames: ['breakglass stop', 'breakglass close'],
    argument: none,
    usage: '/vs breakglass end',
    example: '/vs breakglass end',
    help: ['`/vs breakglass end`: close your break-glass window before its end'],
    group: 'changes',
    // The door closes only the person's own window, and records it.
    needs: 'change_attempt',
    run: endBreakGlassCommand,
  }),
  subcommand({
    kind: 'breakglass',
    words: ['breakglass'],
    changes: true,
    nicknames: ['break-glass', 'glass', 'emergency'],
    argument: freeText({ what: 'reason', max: BREAK_GLASS_REASON_MAX_LENGTH, required: true }, (reason) => ({ reason })),
    usage: '/vs breakglass <reason>',
    example: '/vs breakglass db-primary down, nobody to approve',
    help: ['`/vs breakglass <reason>`: for a while, your changes that wait for a second person run at once; loudly, and reviewed after'],
    group: 'changes',
    // A change attempt: the door checks the role of the change that waits, the channel and the freeze, and records a refusal.
    needs: 'change_attempt',
    run: breakGlassCommand,
  }),
  subcommand({
    kind: 'audit',
    words: ['audit'],
    nicknames: ['log', 'audits', 'history'],
    argument: auditArguments(
      { what: 'records', fallback: AUDIT_DEFAULT_LIMIT, max: AUDIT_MAX_LIMIT },
      (limit, filter): { limit: number; filter?: AuditFilter } => (filter === undefined ? { limit } : { limit, filter }),
    ),
    usage: '/vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]',
    example: '/vs audit 20 vs 42',
    help: [
      '`/vs audit [n] [vs <id>|backup <id>|@person|failed|denied|refused|breakglass]`: the latest audit records, of a server, backup or person, ' +
        'of one outcome, or made under break glass (admins)',
    ],
    group: 'admin',
    needs: 'audit_read',
    run: auditCommand,
  }),
  subcommand({
    kind: 'freeze',
    words: ['freeze'],
    changes: true,
    nicknames: ['frozen', 'halt', 'changefreeze'],
    argument: freeText({ what: 'reason', max: FREEZE_REASON_MAX_LENGTH, required: true }, (reason) => ({ reason })),
    usage: '/vs freeze <reason>',
    example: '/vs freeze deploy in progress',
    help: ['`/vs freeze <reason>`: refuse every change until `/vs unfreeze` (admins)'],
    group: 'admin',
    // A change attempt: the door checks the admin role (the policy's `freeze`) and records a refusal.
    needs: 'change_attempt',
    run: freezeCommand,
  }),
  subcommand({
    kind: 'unfreeze',
    words: ['unfreeze'],
    changes: true,
    nicknames: ['thaw', 'unfrozen', 'defrost'],
    argument: none,
    usage: '/vs unfreeze',
    example: '/vs unfreeze',
    help: ['`/vs unfreeze`: allow changes again (admins)'],
    group: 'admin',
    needs: 'change_attempt',
    run: unfreezeCommand,
  }),
  // Agents (docs/product.md, Agents ask, people decide): tokens for AI agents that act for their maker.
  subcommand({
    kind: 'agent_tokens',
    words: ['agent', 'tokens'],
    nicknames: ['agents', 'agent list', 'tokens'],
    argument: none,
    usage: '/vs agent tokens',
    example: '/vs agent tokens',
    help: ['`/vs agent tokens`: your live agent tokens'],
    needs: 'everyone',
    run: agentTokensCommand,
  }),
  subcommand({
    kind: 'agent_token',
    words: ['agent', 'token'],
    nicknames: ['agent', 'token', 'agent new'],
    argument: agentTokenArguments,
    usage: '/vs agent token <name> [hours]',
    example: '/vs agent token laptop 8',
    help: ['`/vs agent token <name> [hours]`: a token for an AI agent that acts for you, shown once (operators, admins; 8 hours unless you say)'],
    needs: 'everyone',
    run: agentTokenCommand,
  }),
  subcommand({
    kind: 'agent_revoke',
    words: ['agent', 'revoke'],
    nicknames: ['revoke', 'agent end', 'agent delete'],
    argument: agentRevokeArguments,
    usage: '/vs agent revoke <name>',
    example: '/vs agent revoke laptop',
    help: ["`/vs agent revoke <name>`: end your agent's token (admins: anyone's)"],
    needs: 'everyone',
    run: agentRevokeCommand,
  }),
  // Watches (docs/product.md, Watches: the bot speaks first). `quiet` and `all` before a server's watch: the longer
  // spelling wins. Making and ending one is counted as a change attempt (it changes what the channel is told; nothing
  // of the cloud), and its listener checks the operator role (admin for every server); listing them is a read.
  subcommand({
    kind: 'watch_quiet',
    changes: true,
    words: ['watch', 'quiet'],
    nicknames: ['quiet', 'quiet hours', 'mute'],
    argument: quietHoursArgument,
    usage: '/vs watch quiet <HH:MM-HH:MM>|off',
    example: '/vs watch quiet 22:00-07:00',
    help: [
      "`/vs watch quiet <HH:MM-HH:MM>|off`: quiet hours for this channel's watches: power and lock news held, summed up when they end (operators, admins)",
    ],
    group: 'changes',
    needs: 'change_attempt',
    run: watchQuietCommand,
  }),
  subcommand({
    kind: 'watch_all',
    changes: true,
    words: ['watch', 'all'],
    nicknames: ['watch every', 'watch everything'],
    argument: everyServerEvents,
    usage: '/vs watch all [failures]',
    example: '/vs watch all failures',
    help: ['`/vs watch all [failures]`: this channel is told of every server of the account (only failures unless you say) (admins)'],
    group: 'admin',
    needs: 'change_attempt',
    run: watchAllCommand,
  }),
  subcommand({
    kind: 'watch',
    changes: true,
    words: ['watch'],
    nicknames: ['subscribe', 'notify'],
    argument: serverIdAndEvents,
    usage: '/vs watch <vs_id> [power|lock|failures|all]',
    example: '/vs watch 42',
    help: ['`/vs watch <vs_id> [power|lock|failures|all]`: this channel is told when that server changes (operators, admins)'],
    group: 'changes',
    needs: 'change_attempt',
    run: watchCommand,
  }),
  subcommand({
    kind: 'unwatch_all',
    changes: true,
    words: ['unwatch', 'all'],
    nicknames: ['unwatch every', 'unwatch everything'],
    argument: none,
    usage: '/vs unwatch all',
    example: '/vs unwatch all',
    help: ["`/vs unwatch all`: end this channel's watch of every server (admins)"],
    group: 'admin',
    needs: 'change_attempt',
    run: unwatchAllCommand,
  }),
  subcommand({
    kind: 'unwatch',
    changes: true,
    words: ['unwatch'],
    nicknames: ['unsubscribe'],
    argument: serverId,
    usage: '/vs unwatch <vs_id>',
    example: '/vs unwatch 42',
    help: ["`/vs unwatch <vs_id>`: end this channel's watch of that server (operators, admins)"],
    group: 'changes',
    needs: 'change_attempt',
    run: unwatchCommand,
  }),
  subcommand({
    kind: 'watches',
    words: ['watches'],
    nicknames: ['watching', 'watchlist', 'subscriptions'],
    argument: none,
    usage: '/vs watches',
    example: '/vs watches',
    help: ["`/vs watches`: this channel's watches, each with an Unwatch button"],
    needs: 'read',
    run: watchesCommand,
  }),
  subcommand({
    kind: 'help',
    words: ['help'],
    nicknames: ['usage', '?'],
    argument: none,
    usage: '/vs help',
    example: '/vs help',
    help: ['`/vs help`: this help'],
    whenEmpty: true,
    needs: 'everyone',
    run: (ctx, req) => helpCommand(ctx, req, HELP),
  }),
];

type Row = (typeof COMMANDS)[number];

/**
 * A line that is not a `/vs` command: the message says why, `suggestion` is the closest valid command, ready to type,
 * and `usage` how to type the command it names or comes closest to.
 */
export type InvalidCommand = {
  kind: 'invalid';
  /** Plain text with `code` spans; echoed input is cut short and cleaned (blocks/grammar.ts). */
  message: string;
  suggestion?: string;
  usage?: string;
};

/** A `/vs` line as read: one row's kind and the fields its grammar read, or invalid. */
export type Command = CommandOf<Row> | InvalidCommand;

/**
 * The changes the server's card offers a button for: each row that opens a change's form for a server named alone, by
 * its words (not `/vs firewall remove`, which also needs the rule).
 */
const SERVER_CHANGES: readonly ServerChange[] = COMMANDS.flatMap((row) =>
  'opens' in row && row.argument === serverId && (('about' in row ? row.about : undefined) ?? CHANGES[row.opens].targetKind) === 'vs'
    ? [{ action: row.opens, words: row.words.join(' ') }]
    : [],
);

/** Every read command, by its words, with the read it needs: what `/vs whoami` and the Home tab say a role may read. */
export const READ_COMMANDS: readonly ReadCommand[] = COMMANDS.flatMap((row) =>
  'needs' in row && (row.needs === 'read' || row.needs === 'audit_read') ? [{ words: `/vs ${row.words.join(' ')}`, needs: row.needs }] : [],
);

/** What `/vs help` says: each group's help lines (reads, changes, admin), in the table's order within it. */
export const HELP: readonly HelpSection[] = HELP_GROUPS.map((group) => ({
  group,
  lines: COMMANDS.filter((row) => helpGroupOf(row) === group).flatMap((row) => row.help),
}));

/** Reads a `/vs` line against the table: its command, what it needs, and how to run it. Never throws. */
export function readCommand(text: string): Reading<Command> {
  const tokens = tokenize(typeof text === 'string' ? text : '');
  if (tokens.length === 0) {
    const row = COMMANDS.find((r) => r.whenEmpty);
    if (row) tokens.push(...row.words);
  }
  const found = findRow<Row>(COMMANDS, tokens);
  if (found === null) return invalidCommand(unknownCommand(COMMANDS, tokens));
  const name = found.args[0];
  if (takesServer(found.row) && name !== undefined && mayNameServer(name)) {
    // A server by name (docs/product.md, Servers by name): the rest of the line is read now, with a stand-in id; the
    // name is looked up once the command is acked and its role checked, then the line runs with the server's id.
    const rest = found.args.slice(1);
    const read = found.row.read([STAND_IN_ID, ...rest], found.quoted);
    if (!read.ok) return invalidCommand({ ...read, suggestion: read.suggestion?.replace(STAND_IN_ID, name), usage: found.row.usage });
    const words = tokens.slice(0, tokens.length - found.args.length);
    const lineFor = (id: number) => [...words, String(id), ...rest].join(' ');
    const reading = read.value as Reading<Command>;
    const need = 'opens' in found.row ? { ...reading.need, target: `${reading.need.target?.split(':')[0] ?? 'vs'}:${name}` } : reading.need;
    return {
      command: { kind: found.row.kind, server: name } as unknown as Command,
      need,
      run: (ctx, req) => serverByName(ctx, req, name, (id) => readCommand(lineFor(id)), lineFor),
    };
  }
  const read = found.row.read(found.args, found.quoted);
  return read.ok ? read.value : invalidCommand({ ...read, usage: found.row.usage });
}

/** The command a `/vs` line reads as. */
export function parseCommand(text: string): Command {
  return readCommand(text).command;
}

/** The rows whose first argument is a server: they take its id, name or address. */
const takesServer = (row: Row): boolean =>
  row.argument === serverId ||
  row.argument === serverIdAndPortQuestion ||
  row.argument === serverIdAndFirewallRule ||
  row.argument === serverIdAndRuleId ||
  row.argument === serverIdAndEvents;

/** The largest id, standing in for a server's name while the rest of a line is read (never looked up). */
const STAND_IN_ID = String(Number.MAX_SAFE_INTEGER);

function invalidCommand({ message, suggestion, usage }: Refusal): Reading<Command> {
  const command: InvalidCommand = { kind: 'invalid', message, ...(suggestion === undefined ? {} : { suggestion }), ...(usage === undefined ? {} : { usage }) };
  return { command, need: { need: 'everyone' }, run: (_ctx, req) => usageCommand(req, command) };
}

type CommandArgs = AllMiddlewareArgs & SlackCommandMiddlewareArgs;

/** Reads `/vs …` once, before anything else looks at it. */
export async function parseVsCommand({ command, context, next }: CommandArgs): Promise<void> {
  (context as { command?: Reading<Command> }).command = readCommand(typeof command.text === 'string' ? command.text : '');
  await next();
}

/** The line parseVsCommand read; throws a coded error when it did not run. */
export function commandOf(context: Context): Reading<Command> {
  const reading = (context as { command?: Reading<Command> }).command;
  if (!reading) throw new MiddlewareMissingError('parseVsCommand');
  return reading;
}
