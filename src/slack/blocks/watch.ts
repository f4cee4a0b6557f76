import type { KnownBlock } from '@slack/types';
import type { Role, RoleHolders } from '../../changes';
import { EVERY_SERVER, type Power, type Watch, type WatchEvent } from '../../store';
import type { Notice } from '../../watch/diff';
import type { QuietSummaryLine } from '../../watch/quiet';
import { holdersText } from './denials';
import { context, escapeMrkdwn, fallback, mrkdwn, oneLine, type Rendered, safe, section, slackTime, withSandbox } from './mrkdwn';
import { serverName, serverNameMrkdwn } from './names';
import { transactionText, transactionWords } from './transactions';

// A watch's notification in its channel (docs/product.md, Watches: the bot speaks first): what changed, on which
// server, and the state it left it in, in one line; the server by its label and id.

const POWER_WORDS: Record<Power, string> = { on: 'on', off: 'off', suspended: 'suspended', recovery: 'in recovery' };

/** "web-1 (VS 42)", or "VS 42" without a label (the label escaped and shortened). */
export function watchedServerName(notice: Pick<Notice, 'serverId' | 'label'>): string {
  const label = notice.label === null ? '' : safe(oneLine(notice.label), 80);
  return label === '' ? `VS ${notice.serverId}` : `${label} (VS ${notice.serverId})`;
}

/** The notice's sentence, with mrkdwn (`plain`: the action of a failure as text, for the fallback). */
function sentence(notice: Notice, plain: boolean): { emoji: string; line: string } {
  const name = watchedServerName(notice);
  switch (notice.kind) {
    case 'power_on':
    case 'power_off':
    case 'power_suspended':
    case 'power_recovery': {
      const now = POWER_WORDS[notice.state as Power] ?? safe(notice.state, 20);
      if (notice.from === 'recovery') return { emoji: ':arrows_counterclockwise:', line: `${name} is out of recovery: it is ${now}` };
      const was = notice.from === undefined ? '' : ` (it was ${POWER_WORDS[notice.from]})`;
      const emoji = notice.kind === 'power_on' ? ':large_green_circle:' : notice.kind === 'power_off' ? ':red_circle:' : ':large_yellow_circle:';
      return { emoji, line: `${name} is ${now}${was}` };
    }
    case 'lock_long':
      return { emoji: ':lock:', line: `${name} has been locked since ${plain ? new Date(notice.sinceMs ?? 0).toISOString() : slackTime(notice.sinceMs ?? 0)}` };
    case 'lock_end':
      return { emoji: ':unlock:', line: `${name} is unlocked again` };
    case 'gone':
      return { emoji: ':ghost:', line: `${name} is gone: the cloud no longer lists it` };
    case 'failed': {
      const action =
        notice.transaction === undefined ? 'a transaction' : plain ? transactionText(notice.transaction.action) : transactionWords(notice.transaction.action);
      const id = notice.transaction === undefined ? '' : ` (transaction ${notice.transaction.id})`;
      return { emoji: ':x:', line: `${name}: ${action} failed in the cloud${id}` };
    }
    case 'blind':
      return { emoji: ':see_no_evil:', line: 'The watch cannot read the cloud: changes to watched servers are not seen until it can again' };
    case 'sees_again':
      return { emoji: ':eyes:', line: 'The watch can read the cloud again' };
  }
}

/** The action_ids of a notification's buttons (and of each watch's Unwatch in `/vs watches`); the value is the server's id. */
export const WATCH_SNOOZE_1H = 'watch_snooze_1h';
export const WATCH_SNOOZE_4H = 'watch_snooze_4h';
export const WATCH_UNWATCH = 'watch_unwatch';
/** How long each snooze button holds a server's news, in hours. */
export const SNOOZE_HOURS: Readonly<Record<string, number>> = { [WATCH_SNOOZE_1H]: 1, [WATCH_SNOOZE_4H]: 4 };

const button = (actionId: string, text: string, value: number) => ({
  type: 'button' as const,
  action_id: actionId,
  text: { type: 'plain_text' as const, text },
  value: String(value),
});

export function renderWatchNotice(notice: Notice, sandbox: boolean): Rendered {
  const { emoji, line } = sentence(notice, false);
  const blocks: KnownBlock[] = [section(`${emoji} *${line}*`), context('Told by a watch of this channel.')];
  // Blindness is the account's, not a server's: nothing to snooze or unwatch there.
  if (notice.serverId !== EVERY_SERVER)
    blocks.push({
      type: 'actions',
      elements: [
        button(WATCH_SNOOZE_1H, 'Snooze 1 h', notice.serverId),
        button(WATCH_SNOOZE_4H, 'Snooze 4 h', notice.serverId),
        button(WATCH_UNWATCH, 'Unwatch', notice.serverId),
      ],
    });
  return { text: fallback(sentence(notice, true).line, sandbox), blocks: withSandbox(blocks, sandbox) };
}

// The answers of `/vs watch`, `/vs unwatch`, `/vs watches`, `/vs watch quiet` and of the buttons.

const EVENT_WORDS: Record<WatchEvent, string> = { power: 'power', lock: 'locks', failures: 'failures' };

/** "power, locks and failures". */
export function eventsText(events: readonly WatchEvent[]): string {
  const words = events.map((e) => EVENT_WORDS[e]);
  return words.length <= 1 ? (words[0] ?? 'nothing') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** What a server was found in when its watch began: its power and lock. */
export interface StartingState {
  power: Power | null;
  locked: boolean | null;
}

function stateText(state: StartingState | null): string {
  if (state === null) return 'its state could not be read just now; the watch starts from what it reads next';
  const power = state.power === null ? 'power unknown' : POWER_WORDS[state.power];
  const lock = state.locked === null ? '' : state.locked ? ', locked' : ', unlocked';
  return `it is ${power}${lock} now`;
}

const said = (line: string, note: string, sandbox: boolean): Rendered => ({
  text: fallback(line.replace(/[*_]/g, ''), sandbox),
  blocks: withSandbox([section(line), context(note)], sandbox),
});

const NOTE = 'Only changes are told, each once. `/vs watches` lists this channel’s watches.';

/** `/vs watch <vs>`: made or changed, and the state it starts from ("web-1 (VS 42) … it is on, unlocked now"). */
export function renderWatchMade(o: {
  serverId: number;
  label: string | null;
  events: readonly WatchEvent[];
  added: boolean;
  state: StartingState | null;
  sandbox: boolean;
}): Rendered {
  const name = serverNameMrkdwn(o.serverId, o.label);
  const what = o.added
    ? `:eyes: This channel now watches *${name}*: ${eventsText(o.events)}`
    : `:eyes: This channel’s watch of *${name}* now tells ${eventsText(o.events)}`;
  return said(`${what}. Starting from: ${stateText(o.state)}.`, NOTE, o.sandbox);
}

/** `/vs watch all [failures]`. */
export function renderWatchAllMade(o: { events: readonly WatchEvent[]; added: boolean; sandbox: boolean }): Rendered {
  const what = o.added ? ':eyes: This channel now watches *every server* of the account' : ':eyes: This channel’s watch of *every server* now tells';
  return said(`${what}: ${eventsText(o.events)}. Starting from what the next read finds.`, NOTE, o.sandbox);
}

export function renderWatchFull(o: { max: number; sandbox: boolean }): Rendered {
  return said(
    `:warning: This channel has ${o.max} watches, the most it may have. Nothing was added.`,
    '`/vs watches` lists them, each with an Unwatch button.',
    o.sandbox,
  );
}

export function renderUnwatched(o: { serverId: number; label: string | null; removed: boolean; sandbox: boolean }): Rendered {
  const name = o.serverId === EVERY_SERVER ? '*every server*' : `*${serverNameMrkdwn(o.serverId, o.label)}*`;
  return o.removed
    ? said(`:white_check_mark: This channel no longer watches ${name}.`, NOTE, o.sandbox)
    : said(`This channel does not watch ${name}: nothing to stop.`, NOTE, o.sandbox);
}

export function renderSnoozed(o: { serverId: number; label: string | null; untilMs: number; every: boolean; sandbox: boolean }): Rendered {
  const what = o.every
    ? `this channel’s watch of *every server* (which told it of ${serverNameMrkdwn(o.serverId, o.label)})`
    : `news of *${serverNameMrkdwn(o.serverId, o.label)}*`;
  return said(`:zzz: Snoozed ${what} until ${slackTime(o.untilMs)}.`, 'A change seen meanwhile is not told later: only what changes after that.', o.sandbox);
}

export function renderNotWatched(o: { serverId: number; label: string | null; sandbox: boolean }): Rendered {
  return said(`This channel no longer watches ${serverNameMrkdwn(o.serverId, o.label)}: nothing to snooze.`, NOTE, o.sandbox);
}

/** HH:MM of a minute of the day. */
export const clockText = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;

export function renderQuietSet(o: { hours: { startMin: number; endMin: number } | null; timeZone: string; sandbox: boolean }): Rendered {
  if (o.hours === null) return said(':bell: This channel’s watches have no quiet hours now: power and lock news is told at once.', NOTE, o.sandbox);
  const span = `${clockText(o.hours.startMin)}–${clockText(o.hours.endMin)} (${escapeMrkdwn(o.timeZone)})`;
  return said(
    `:crescent_moon: Quiet hours for this channel’s watches: ${span}. Power and lock news is held and summed up in one message when ` +
      'they end; failures and disappearances are told at once.',
    '`/vs watch quiet off` ends them.',
    o.sandbox,
  );
}

/** `/vs watches`: each watch with an Unwatch button, and the quiet hours. */
export const MAX_WATCHES_SHOWN = 45;

export function renderWatchList(o: {
  watches: readonly Watch[];
  quiet: { startMin: number; endMin: number } | null;
  labelOf: (id: number) => string | null;
  timeZone: string;
  nowMs: number;
  sandbox: boolean;
}): Rendered {
  if (o.watches.length === 0)
    return said('This channel watches no server.', '`/vs watch <vs>` watches one: this channel is then told when it changes.', o.sandbox);
  const blocks: KnownBlock[] = [section(`:eyes: This channel watches ${o.watches.length === 1 ? 'one server' : `${o.watches.length} watches`}:`)];
  const names: string[] = [];
  for (const watch of o.watches.slice(0, MAX_WATCHES_SHOWN)) {
    const every = watch.serverId === EVERY_SERVER;
    const name = every ? '*every server*' : `*${serverNameMrkdwn(watch.serverId, o.labelOf(watch.serverId))}*`;
    names.push(every ? 'every server' : serverName(watch.serverId, o.labelOf(watch.serverId)));
    const snoozed = watch.snoozedUntilMs !== null && watch.snoozedUntilMs > o.nowMs ? ` · snoozed until ${slackTime(watch.snoozedUntilMs)}` : '';
    blocks.push({
      type: 'section',
      text: mrkdwn(`${name}: ${eventsText(watch.events)}${snoozed}`),
      accessory: button(WATCH_UNWATCH, 'Unwatch', watch.serverId),
    });
  }
  const more = o.watches.length - MAX_WATCHES_SHOWN;
  const quiet =
    o.quiet === null ? 'No quiet hours.' : `Quiet hours: ${clockText(o.quiet.startMin)}–${clockText(o.quiet.endMin)} (${escapeMrkdwn(o.timeZone)}).`;
  blocks.push(context(`${more > 0 ? `And ${more} more. ` : ''}${quiet}`));
  return {
    text: fallback(`This channel watches: ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`, o.sandbox),
    blocks: withSandbox(blocks, o.sandbox),
  };
}

const ROLE_WITH_ARTICLE: Record<Role, string> = {
  none: 'you have no role',
  viewer: 'you are a viewer',
  operator: 'you are an operator',
  admin: 'you are an admin',
};

/** A watch command refused for its role, naming who holds it now. */
export function renderWatchDenied(o: { doing: string; needed: Role; role: Role; holders: readonly RoleHolders[] }): Rendered {
  const text = `${o.doing} needs the ${o.needed} role; ${ROLE_WITH_ARTICLE[o.role]}. ${holdersText(o.needed, o.holders)}`;
  return { text: fallback(text), blocks: [section(`:no_entry: ${text}`), context('`/vs whoami` shows your role and what it allows.')] };
}

export const WATCHES_UNREACHABLE = 'Watches could not be read or written: the store did not answer. Nothing was changed; try again in a moment.';

const KIND_WORDS: Record<string, string> = {
  power_on: 'came on',
  power_off: 'went off',
  power_suspended: 'was suspended',
  power_recovery: 'went into recovery',
  lock_long: 'stayed locked',
  lock_end: 'was unlocked',
};
const TIMES = ['', '', ' twice', ' three times'];
const STATE_WORDS: Record<string, string> = { on: 'on', off: 'off', suspended: 'suspended', recovery: 'in recovery', locked: 'locked', unlocked: 'unlocked' };

/** The summary posted when quiet hours end ("While quiet: web-1 (VS 42) went off twice, came on twice; it is on"). */
export function renderQuietSummary(lines: readonly QuietSummaryLine[], sandbox: boolean): Rendered {
  const sentences = lines.map((line) => {
    const what = line.kinds.map(({ kind, times }) => `${KIND_WORDS[kind] ?? safe(kind, 30)}${TIMES[times] ?? ` ${times} times`}`).join(', ');
    return {
      name: serverName(line.serverId, line.label),
      safeName: serverNameMrkdwn(line.serverId, line.label),
      what,
      last: STATE_WORDS[line.lastState] ?? safe(line.lastState, 20),
    };
  });
  const blocks: KnownBlock[] = [section(':sunrise: *While quiet:*')];
  for (const s of sentences.slice(0, 40)) blocks.push(section(`• ${s.safeName} ${s.what}; it is ${s.last}`));
  if (sentences.length > 40) blocks.push(context(`And ${sentences.length - 40} more servers.`));
  blocks.push(context('Held by this channel’s quiet hours; failures and disappearances were told at once.'));
  return {
    text: fallback(`While quiet: ${sentences.map((s) => `${s.name} ${s.what}; it is ${s.last}`).join('. ')}`, sandbox),
    blocks: withSandbox(blocks, sandbox),
  };
}
