import type { ActionsBlock, Button, KnownBlock } from '@slack/types';
import { runningTransaction, type ChangeAction, type PowerState } from '../../changes';
import { newestFirst } from '../../changes/backups';
import type { Frozen } from '../../cloud/reads';
import type { Backup, Disk, Server, Transaction } from '../../cloud/schemas';
import { backupLine } from './backups';
import { CHANGE_FORMS } from './change-forms';
import { diskLine, diskOrder } from './disks';
import { sizeFromMb } from './measures';
import { POWER_STATE_WORDS } from './power';
import { code, context, fallback, header, oneLine, safe, section, slackTime, truncate, withSandbox, type Rendered } from './mrkdwn';
import { TRANSACTION_STATUS_WORDS, transactionWords } from './transactions';

// The server at a glance (docs/product.md, Server at a glance): the answer to
// "what state is it in?" in one message, from the server's record, its disks,
// backups and transactions, each read on its own: a part that could not be
// read says so and the rest is shown. The buttons lead to the other views and
// to the change forms the reader's role allows; each is the `/vs` command it
// names, checked as if typed.

/** A part of the card: what was read, or why it could not be (a sentence, plain text). */
export type Part<T> = { value: T } | { unread: string };

/** A server's power at a glance: a mark before its words. */
const POWER_MARKS: Readonly<Record<PowerState, string>> = {
  on: ':large_green_circle:',
  off: ':red_circle:',
  suspended: ':large_orange_circle:',
  recovery: ':large_yellow_circle:',
};

/** ":large_green_circle: *on*" */
export const powerWords = (power: PowerState): string => `${POWER_MARKS[power]} *${POWER_STATE_WORDS[power]}*`;

/** The most backups and transactions the card lists: the newest. */
export const CARD_LATEST = 5;
/** The most disks the card lists (a server with more has them counted, and `/vs disks` lists them). */
export const CARD_DISKS = 10;

/** A button of the card: the `/vs` command it runs (as typed after `/vs`), its action_id and its text. */
export interface CardButton {
  actionId: string;
  text: string;
  line: string;
}

/** The action_ids of the card's buttons: `server_<what>`, each running the `/vs` command its value names. */
export const SERVER_CARD_ACTIONS = /^server_[a-z_]+$/;

/** The other views of a server, always offered. */
export const VIEW_BUTTONS = (vsId: number): CardButton[] => [
  { actionId: 'server_firewall', text: 'Firewall', line: `firewall ${vsId}` },
  { actionId: 'server_autoscaling', text: 'Autoscaling', line: `autoscaling ${vsId}` },
  { actionId: 'server_backups', text: 'Backups', line: `backups ${vsId}` },
];

/** The button of a change's form: its title (Add disk, Start server…), and the command that opens it. */
export function changeButton(action: ChangeAction, line: string): CardButton {
  return { actionId: `server_${action}`, text: CHANGE_FORMS[action].title, line };
}

export interface ServerGlanceView {
  vsId: number;
  server: Part<Frozen<Server>>;
  power: PowerState | null;
  disks: Part<readonly Frozen<Disk>[]>;
  backups: Part<readonly Frozen<Backup>[]>;
  transactions: Part<readonly Frozen<Transaction>[]>;
  /** The change forms the reader may open, in order (buttons after the views'). */
  changes: readonly CardButton[];
  now: number;
  sandbox: boolean;
}

/** "locked: taking an incremental backup is running", or only that it is locked when its transaction is not known. */
export function lockWords(locked: boolean, transactions: Part<readonly Frozen<Transaction>[]>): string {
  if (!locked) return ':unlock: not locked';
  const running = 'value' in transactions ? runningTransaction(transactions.value) : undefined;
  return running ? `:lock: *locked*: ${transactionWords(running.action)} is ${running.status}` : ':lock: *locked* by a running transaction';
}

export function renderServerGlance(v: ServerGlanceView): Rendered {
  const server = 'value' in v.server ? v.server.value : null;
  const title = `VS ${v.vsId}`;
  const label = server?.label ? safe(oneLine(server.label).trim(), 120) : '';
  // The label is the cloud's text: in mrkdwn, escaped, never in the plain-text header.
  const blocks: KnownBlock[] = [header(title)];

  if (server) {
    const host = server.hostname ? code(server.hostname, 120) : '_no hostname_';
    const power = v.power ? powerWords(v.power) : ':grey_question: power unknown';
    blocks.push(section(`${label ? `*${label}* · ` : ''}${host}\n${power} · ${lockWords(server.locked === true, v.transactions)}`));
    blocks.push(section(facts(server, v)));
  } else {
    blocks.push(section(`:warning: The server's record could not be read: ${safe(unreadOf(v.server), 500)}`));
  }
  blocks.push(
    section(
      partText('Disks', v.disks, (disks) => {
        if (disks.length === 0) return 'none';
        // A line each, cut before the section's limit would cut one in half: the rest are counted, and /vs disks lists them.
        const shown = diskOrder(disks).slice(0, CARD_DISKS);
        const more = disks.length - shown.length;
        return shown.map(diskLine).join('\n') + (more > 0 ? `\n_and ${more.toLocaleString('en')} more: ${code(`/vs disks ${v.vsId}`)}_` : '');
      }),
    ),
  );
  blocks.push(
    section(
      partText('Latest backups', v.backups, (backups) => {
        if (backups.length === 0) return 'none';
        const latest = newestFirst(backups).slice(0, CARD_LATEST);
        const of = backups.length > latest.length ? `_the newest ${latest.length} of ${backups.length}_\n` : '';
        return of + latest.map((b) => `• ${backupLine(b, v.now)}`).join('\n');
      }),
    ),
  );
  blocks.push(
    section(
      partText('Latest transactions', v.transactions, (transactions) =>
        transactions.length === 0
          ? 'none'
          : transactions
              .slice(0, CARD_LATEST)
              .map((t) => `• ${transactionLine(t)}`)
              .join('\n'),
      ),
    ),
  );
  blocks.push(buttons([...VIEW_BUTTONS(v.vsId), ...v.changes]));
  blocks.push(context(`More: ${code(`/vs disks ${v.vsId}`)} · ${code(`/vs firewall ${v.vsId} <port>`)} · fetched ${slackTime(v.now)}`));

  const state = server ? `${v.power ?? 'power unknown'}${server.locked ? ', locked' : ''}` : 'its record could not be read';
  return { text: fallback(`${title}${label ? ` (${label})` : ''}: ${state}`, v.sandbox), blocks: withSandbox(blocks, v.sandbox) };
}

/** Memory, CPUs, disk, template and OS, hypervisor, addresses, autoscaling. */
function facts(server: Frozen<Server>, v: ServerGlanceView): string {
  const disks = 'value' in v.disks ? v.disks.value : null;
  const totalDisk = server.total_disk_size ?? disks?.reduce((sum, d) => sum + d.disk_size, 0) ?? null;
  const os = [server.operating_system, server.operating_system_distro].filter((s): s is string => !!s).map((s) => safe(oneLine(s), 30));
  const template = server.template_label ? safe(oneLine(server.template_label), 80) : server.template_id != null ? `template ${server.template_id}` : 'unknown';
  const addresses = server.ip_addresses.map((ip) => code(ip.address, 45));
  const shownAddresses = addresses.length === 0 ? 'none' : addresses.slice(0, 8).join(', ') + (addresses.length > 8 ? ` and ${addresses.length - 8} more` : '');
  const memory = server.memory != null ? sizeFromMb(server.memory) : 'unknown';
  const autoscaling = server.enable_autoscale === true ? 'on' : server.enable_autoscale === false ? 'off' : 'not set';
  return [
    `*Memory* ${memory} · *CPUs* ${server.cpus ?? 'unknown'} · *Disk* ${totalDisk != null ? `${totalDisk} GB` : 'unknown'}`,
    `*Template* ${template}${os.length ? ` (${os.join(', ')})` : ''} · *Hypervisor* ${server.hypervisor_id ?? 'unknown'}`,
    `*IP addresses* ${shownAddresses}`,
    `*Autoscaling* ${autoscaling}`,
  ].join('\n');
}

/** "<when> · taking a backup · failed": one transaction, a failed one standing out. */
function transactionLine(t: Frozen<Transaction>): string {
  const at = [t.started_at, t.created_at, t.updated_at].map((s) => (s == null ? NaN : Date.parse(s))).find(Number.isFinite);
  return `${at === undefined ? 'time unknown' : slackTime(at)} · ${transactionWords(t.action)} · ${TRANSACTION_STATUS_WORDS[t.status]}`;
}

function partText<T>(title: string, part: Part<T>, lines: (value: T) => string): string {
  if ('unread' in part) return `*${title}*: :warning: could not be read: ${safe(part.unread, 500)}`;
  return truncate(`*${title}*\n${lines(part.value)}`, 2900);
}

const unreadOf = (part: Part<unknown>): string => ('unread' in part ? part.unread : '');

function buttons(list: readonly CardButton[]): ActionsBlock {
  return {
    type: 'actions',
    block_id: 'server_card_buttons',
    elements: list.map((b): Button => ({ type: 'button', action_id: b.actionId, text: { type: 'plain_text', text: b.text }, value: b.line })),
  };
}
