import { atLeast, type Role } from '../../../changes';
import { isCloudError } from '../../../cloud/errors';
import { EVERY_SERVER, isStoreUnavailable, WATCH_EVENTS, type WatchEvent } from '../../../store';
import { powerOf } from '../../../watch/diff';
import { parseQuietHours } from '../../../watch/quiet';
import { refusals, type Quoted } from '../../blocks/grammar';
import {
  renderQuietSet,
  renderUnwatched,
  renderWatchAllMade,
  renderWatchDenied,
  renderWatchFull,
  renderWatchList,
  renderWatchMade,
  WATCHES_UNREACHABLE,
  type StartingState,
} from '../../blocks/watch';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral, replyError, replySummary } from '../../reply';
import { parseId, type Grammar, type Read } from './grammar';

// `/vs watch <vs> [power|lock|failures|all]`, `/vs watch all [failures]`, `/vs unwatch <vs>|all`, `/vs watches` and
// `/vs watch quiet HH:MM-HH:MM|off` (docs/product.md, Watches: the bot speaks first). Every row needs a read (counted
// against the person's reads); making and ending watches then needs the operator role (admin for every server),
// checked here against the role the person holds now, and the refusal names who holds it.

const ok = <A>(value: A): Read<A> => ({ ok: true, value });
const refuse = (message: string, suggestion?: string): Read<never> => (suggestion === undefined ? { ok: false, message } : { ok: false, message, suggestion });

const EVENT_WORD: Record<string, readonly WatchEvent[]> = { power: ['power'], lock: ['lock'], failures: ['failures'], all: WATCH_EVENTS };

/** `<vs> [power|lock|failures|all]`: the server, and what to tell (default all). */
export const serverIdAndEvents: Grammar<{ vsId: number; events: readonly WatchEvent[] }> = {
  read(args, q: Quoted) {
    if (args.length === 0) return refuse(refusals.needs(q, 'server'));
    const vsId = parseId(args[0]);
    if (vsId === null) return refuse(refusals.notAnId(q, args[0] ?? '', 'server id'));
    if (args.length > 2)
      return refuse(`\`${q.bare}\` takes a server and at most one of power, lock, failures or all, e.g. \`${q.example}\`.`, `${q.bare} ${vsId}`);
    const word = (args[1] ?? 'all').toLowerCase();
    const events = EVENT_WORD[word];
    if (events === undefined) return refuse(`\`${q.bare}\` tells power, lock, failures or all; not that, e.g. \`${q.example}\`.`, `${q.bare} ${vsId}`);
    return ok({ vsId, events });
  },
  fits: (args) => args.length >= 1 && args.length <= 2 && parseId(args[0]) !== null && (args[1] === undefined || args[1].toLowerCase() in EVENT_WORD),
  suggest(args, q) {
    const vsId = args.length >= 1 ? parseId(args[0]) : null;
    return vsId === null ? q.usage : `${q.bare} ${vsId}`;
  },
};

/** `[failures]` after `/vs watch all`; `all` says every event. */
export const everyServerEvents: Grammar<{ events: readonly WatchEvent[] }> = {
  read(args, q) {
    if (args.length === 0) return ok({ events: ['failures'] });
    const events = args.length === 1 ? EVENT_WORD[(args[0] ?? '').toLowerCase()] : undefined;
    if (events === undefined) return refuse(`\`${q.bare}\` takes at most one of power, lock, failures or all, e.g. \`${q.example}\`.`, q.bare);
    return ok({ events });
  },
  fits: (args) => args.length === 0 || (args.length === 1 && (args[0] ?? '').toLowerCase() in EVENT_WORD),
  suggest: (_args, q) => q.bare,
};

/** `HH:MM-HH:MM` or `off`. */
export const quietHoursArgument: Grammar<{ hours: { startMin: number; endMin: number } | null }> = {
  read(args, q) {
    const text = args.join('');
    if (text === '') return refuse(refusals.needs(q, 'time span'));
    if (text.toLowerCase() === 'off') return ok({ hours: null });
    const hours = parseQuietHours(text);
    if ('error' in hours) return refuse(`\`${q.bare}\`: ${hours.error}, or \`off\`, e.g. \`${q.example}\`.`);
    return ok({ hours });
  },
  fits: (args) => args.length >= 1,
  suggest: (_args, q) => q.usage,
};

/** What each command is called in a refusal. */
const DOING = {
  watch: 'Watching a server',
  watchAll: 'Watching every server',
  unwatch: 'Unwatching a server',
  unwatchAll: 'Unwatching every server',
  quiet: 'Setting quiet hours',
} as const;

/** Whether the person's role now is at least `needed`; if not, the refusal is told. */
export async function hasRole(ctx: ListenerContext, req: SlackRequest, needed: Role, doing: string): Promise<boolean> {
  const { role } = await ctx.policy.standing(req.userId);
  if (atLeast(role, needed)) return true;
  req.log.info('denied', { action: 'watch', role, needed });
  await replyEphemeral(req, renderWatchDenied({ doing, needed, role, holders: ctx.policy.holders(needed) }));
  return false;
}

/** Runs `run` in the request's channel; a store that does not answer is told (nothing changed). */
export async function inChannel(req: SlackRequest, run: (channelId: string) => Promise<Outcome>): Promise<Outcome> {
  if (req.channelId === null) {
    await replyError(req, 'A watch belongs to a channel: type the command in the channel to be told.');
    return 'invalid';
  }
  try {
    return await run(req.channelId);
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    req.log.warn('watches: the store is unreachable', { error });
    await replyError(req, WATCHES_UNREACHABLE);
    return 'failed';
  }
}

export function watchCommand(ctx: ListenerContext, req: SlackRequest, { vsId, events }: { vsId: number; events: readonly WatchEvent[] }): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    if (!(await hasRole(ctx, req, 'operator', DOING.watch))) return 'denied';
    // The server read now: it must exist, and the answer names the state the watch starts from.
    let label = ctx.names.labelOf(vsId);
    let state: StartingState | null = null;
    try {
      const server = await ctx.cloud.getServer(vsId);
      label = server.label ?? label;
      state = { power: powerOf(server), locked: server.locked ?? null };
    } catch (error) {
      if (isCloudError(error) && error.kind === 'not_found') {
        await replyError(req, `There is no server ${vsId} in the cloud account: nothing to watch.`);
        return 'not_found';
      }
      // Not read now: the watch still starts, from what its next read finds.
      req.log.warn('the server could not be read to start its watch', { error, vs_id: vsId });
    }
    const start = state === null || state.power === null ? null : { power: state.power, locked: state.locked };
    const made = await ctx.watches.watch({ userId: req.userId, channelId }, { serverId: vsId, label }, events, start);
    if (made.outcome === 'full') {
      await replyEphemeral(req, renderWatchFull({ max: made.max, sandbox: ctx.sandbox }));
      return 'invalid';
    }
    req.log.info('watch made', { vs_id: vsId, events: events.join(','), outcome: made.outcome });
    await replySummary(ctx, req, renderWatchMade({ serverId: vsId, label, events, added: made.outcome === 'added', state, sandbox: ctx.sandbox }));
    return 'succeeded';
  });
}

export function watchAllCommand(ctx: ListenerContext, req: SlackRequest, { events }: { events: readonly WatchEvent[] }): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    if (!(await hasRole(ctx, req, 'admin', DOING.watchAll))) return 'denied';
    const made = await ctx.watches.watch({ userId: req.userId, channelId }, { serverId: EVERY_SERVER, label: null }, events);
    if (made.outcome === 'full') {
      await replyEphemeral(req, renderWatchFull({ max: made.max, sandbox: ctx.sandbox }));
      return 'invalid';
    }
    req.log.info('watch of every server made', { events: events.join(','), outcome: made.outcome });
    await replySummary(ctx, req, renderWatchAllMade({ events, added: made.outcome === 'added', sandbox: ctx.sandbox }));
    return 'succeeded';
  });
}

export function unwatchCommand(ctx: ListenerContext, req: SlackRequest, { vsId }: { vsId: number }): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    if (!(await hasRole(ctx, req, 'operator', DOING.unwatch))) return 'denied';
    const label = ctx.names.labelOf(vsId);
    const removed = await ctx.watches.unwatch({ userId: req.userId, channelId }, { serverId: vsId, label });
    await (removed
      ? replySummary(ctx, req, renderUnwatched({ serverId: vsId, label, removed, sandbox: ctx.sandbox }))
      : replyEphemeral(req, renderUnwatched({ serverId: vsId, label, removed, sandbox: ctx.sandbox })));
    return removed ? 'succeeded' : 'not_found';
  });
}

export function unwatchAllCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    if (!(await hasRole(ctx, req, 'admin', DOING.unwatchAll))) return 'denied';
    const removed = await ctx.watches.unwatch({ userId: req.userId, channelId }, { serverId: EVERY_SERVER, label: null });
    const message = renderUnwatched({ serverId: EVERY_SERVER, label: null, removed, sandbox: ctx.sandbox });
    await (removed ? replySummary(ctx, req, message) : replyEphemeral(req, message));
    return removed ? 'succeeded' : 'not_found';
  });
}

export function watchesCommand(ctx: ListenerContext, req: SlackRequest): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    const { watches, quiet } = await ctx.watches.list(channelId);
    await replySummary(
      ctx,
      req,
      renderWatchList({ watches, quiet, labelOf: (id) => ctx.names.labelOf(id), timeZone: ctx.config.timeZone, nowMs: ctx.now(), sandbox: ctx.sandbox }),
    );
    return 'succeeded';
  });
}

export function watchQuietCommand(
  ctx: ListenerContext,
  req: SlackRequest,
  { hours }: { hours: { startMin: number; endMin: number } | null },
): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    if (!(await hasRole(ctx, req, 'operator', DOING.quiet))) return 'denied';
    await ctx.watches.setQuiet(channelId, hours);
    req.log.info('quiet hours set', { quiet: hours === null ? 'off' : `${hours.startMin}-${hours.endMin}` });
    await replySummary(ctx, req, renderQuietSet({ hours, timeZone: ctx.config.timeZone, sandbox: ctx.sandbox }));
    return 'succeeded';
  });
}
