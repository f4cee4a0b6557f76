import { EVERY_SERVER } from '../../../store';
import { renderNotWatched, renderSnoozed, renderUnwatched, SNOOZE_HOURS } from '../../blocks/watch';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import { replyEphemeral, replyError } from '../../reply';
import { hasRole, inChannel } from '../commands/watch';
import type { ButtonArgs } from './button-args';

// A watch's buttons (docs/product.md, Watches: the bot speaks first): Snooze 1 h and Snooze 4 h under a notification,
// Unwatch under a notification and beside each watch of `/vs watches`. The value is the server's id (0: every
// server); the channel is the one the button was clicked in. Both need the operator role now (ending the watch of every
// server: admin); the clicker alone is told how it went.

/** The server id a button carries; null for anything else (a forged value). */
function serverOf(args: ButtonArgs): number | null {
  const value = typeof args.action.value === 'string' ? args.action.value : '';
  return /^[0-9]{1,15}$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : null;
}

export function snoozeClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    const serverId = serverOf(args);
    const hours = SNOOZE_HOURS[args.action.action_id];
    if (serverId === null || hours === undefined) {
      await replyError(req, 'This button names no server: nothing was snoozed.');
      return 'invalid';
    }
    if (!(await hasRole(ctx, req, 'operator', 'Snoozing a watch'))) return 'denied';
    const label = serverId === EVERY_SERVER ? null : ctx.names.labelOf(serverId);
    const snoozed = await ctx.watches.snooze({ userId: req.userId, channelId }, { serverId, label }, hours);
    if (snoozed.outcome === 'not_watched') {
      await replyEphemeral(req, renderNotWatched({ serverId, label, sandbox: ctx.sandbox }));
      return 'not_found';
    }
    req.log.info('watch snoozed', { vs_id: serverId, hours });
    await replyEphemeral(
      req,
      renderSnoozed({
        serverId,
        label,
        untilMs: snoozed.untilMs,
        every: snoozed.watch.serverId === EVERY_SERVER && serverId !== EVERY_SERVER,
        sandbox: ctx.sandbox,
      }),
    );
    return 'succeeded';
  });
}

export function unwatchClick(ctx: ListenerContext, req: SlackRequest, args: ButtonArgs): Promise<Outcome> {
  return inChannel(req, async (channelId) => {
    const serverId = serverOf(args);
    if (serverId === null) {
      await replyError(req, 'This button names no server: nothing was unwatched.');
      return 'invalid';
    }
    // The watch that told it: the server's own, else (under a notification) the channel's watch of every server.
    const watch = await ctx.watches.watchOf(channelId, serverId);
    const target = watch?.serverId ?? serverId;
    const every = target === EVERY_SERVER;
    if (!(await hasRole(ctx, req, every ? 'admin' : 'operator', every ? 'Unwatching every server' : 'Unwatching a server'))) return 'denied';
    const label = every ? null : ctx.names.labelOf(target);
    const removed = watch !== null && (await ctx.watches.unwatch({ userId: req.userId, channelId }, { serverId: target, label }));
    if (removed) req.log.info('watch removed', { vs_id: target });
    await replyEphemeral(req, renderUnwatched({ serverId: target, label, removed, sandbox: ctx.sandbox }));
    return removed ? 'succeeded' : 'not_found';
  });
}
