import { sql, type Selectable } from 'kysely';
import type { WatchesTable, WatchHeldTable, WatchServersTable } from '../schema';
import { WATCH_EVENTS, type FollowedServer, type HeldNews, type Power, type ServerSeen, type Watch, type WatchEvent, type Watches } from '../watches';
import { wholeMs, type SliceDeps } from './rows';

const ACCOUNT = 'account';
const num = (n: number | string | null): number | null => (n === null ? null : Number(n));
const ids = (text: string): number[] => text.split(',').filter(Boolean).map(Number).filter(Number.isSafeInteger);

function toWatch(row: Selectable<WatchesTable>): Watch {
  return {
    channelId: row.channel_id,
    serverId: Number(row.server_id),
    events: WATCH_EVENTS.filter((e) => row.events.split(',').includes(e)),
    createdBy: row.created_by,
    createdAtMs: Number(row.created_at_ms),
    snoozedUntilMs: num(row.snoozed_until_ms),
  };
}

function toSeen(row: Selectable<WatchServersTable>): ServerSeen {
  return {
    serverId: Number(row.server_id),
    label: row.label,
    power: row.power as Power,
    lockedSinceMs: num(row.locked_since_ms),
    lockTold: Number(row.lock_told) === 1,
  };
}

function toHeld(row: Selectable<WatchHeldTable>): HeldNews {
  return { channelId: row.channel_id, serverId: Number(row.server_id), label: row.label, kind: row.kind, state: row.state, atMs: Number(row.at_ms) };
}

/** The server a followed change is about: its target (`vs:42`), else the server its subject names (a restore's). */
function followedServerOf(target: string, subject: string): number | null {
  const match = /^vs:([0-9]+)$/.exec(target);
  if (match) return Number(match[1]);
  try {
    const parsed: unknown = JSON.parse(subject);
    const serverId = parsed !== null && typeof parsed === 'object' ? (parsed as { serverId?: unknown }).serverId : null;
    return typeof serverId === 'number' && Number.isSafeInteger(serverId) ? serverId : null;
  } catch {
    return null;
  }
}

const eventsText = (events: readonly WatchEvent[]) => WATCH_EVENTS.filter((e) => events.includes(e)).join(',');

export function kyselyWatches({ db, dialect }: SliceDeps): Watches {
  return {
    add: (watch, maxPerChannel) =>
      db.transaction().execute(async (trx) => {
        if (dialect === 'postgres') {
          // One channel's additions one at a time across instances, so that the limit holds.
          await sql`SELECT pg_advisory_xact_lock(hashtext(${`watches:${watch.channelId}`}))`.execute(trx);
        }
        const existing = await trx
          .updateTable('watches')
          .set({ events: eventsText(watch.events) })
          .where('channel_id', '=', watch.channelId)
          .where('server_id', '=', watch.serverId)
          .executeTakeFirst();
        const count = async () =>
          Number(
            (
              await trx
                .selectFrom('watches')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('channel_id', '=', watch.channelId)
                .executeTakeFirstOrThrow()
            ).n,
          );
        if (Number(existing.numUpdatedRows) > 0) return { outcome: 'updated' as const, count: await count() };
        const before = await count();
        if (before >= maxPerChannel) return { outcome: 'full' as const, count: before };
        await trx
          .insertInto('watches')
          .values({
            channel_id: watch.channelId,
            server_id: watch.serverId,
            events: eventsText(watch.events),
            created_by: watch.createdBy,
            created_at_ms: wholeMs(watch.createdAtMs),
            snoozed_until_ms: watch.snoozedUntilMs,
          })
          .onConflict((oc) => oc.columns(['channel_id', 'server_id']).doNothing())
          .execute();
        return { outcome: 'added' as const, count: before + 1 };
      }),

    remove: async (channelId, serverId) => {
      const result = await db.deleteFrom('watches').where('channel_id', '=', channelId).where('server_id', '=', serverId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    ofChannel: async (channelId) =>
      (await db.selectFrom('watches').selectAll().where('channel_id', '=', channelId).orderBy('server_id').execute()).map(toWatch),

    all: async () => (await db.selectFrom('watches').selectAll().orderBy('channel_id').orderBy('server_id').execute()).map(toWatch),

    snooze: async (channelId, serverId, untilMs) => {
      const result = await db
        .updateTable('watches')
        .set({ snoozed_until_ms: wholeMs(untilMs) })
        .where('channel_id', '=', channelId)
        .where('server_id', '=', serverId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    servers: async () => (await db.selectFrom('watch_servers').selectAll().orderBy('server_id').execute()).map(toSeen),

    saveServers: async (seen, gone) => {
      if (seen.length === 0 && gone.length === 0) return;
      await db.transaction().execute(async (trx) => {
        // In slices: a first read of a large account is thousands of rows.
        for (let i = 0; i < seen.length; i += 200) {
          await trx
            .insertInto('watch_servers')
            .values(
              seen.slice(i, i + 200).map((s) => ({
                server_id: s.serverId,
                label: s.label,
                power: s.power,
                locked_since_ms: s.lockedSinceMs === null ? null : wholeMs(s.lockedSinceMs),
                lock_told: s.lockTold ? 1 : 0,
              })),
            )
            .onConflict((oc) =>
              oc.column('server_id').doUpdateSet((eb) => ({
                label: eb.ref('excluded.label'),
                power: eb.ref('excluded.power'),
                locked_since_ms: eb.ref('excluded.locked_since_ms'),
                lock_told: eb.ref('excluded.lock_told'),
              })),
            )
            .execute();
        }
        if (gone.length > 0)
          await trx
            .deleteFrom('watch_servers')
            .where('server_id', 'in', [...gone])
            .execute();
      });
    },

    poll: async () => {
      const row = await db.selectFrom('watch_poll').selectAll().where('name', '=', ACCOUNT).executeTakeFirst();
      if (!row) return { txCursor: null, txMax: null, txOpen: [], blindSinceMs: null, blindTold: false };
      return {
        txCursor: num(row.tx_cursor),
        txMax: num(row.tx_max),
        txOpen: ids(row.tx_open),
        blindSinceMs: num(row.blind_since_ms),
        blindTold: Number(row.blind_told) === 1,
      };
    },

    savePoll: async (seen) => {
      const values = {
        tx_cursor: seen.txCursor,
        tx_max: seen.txMax,
        tx_open: seen.txOpen.join(','),
        blind_since_ms: seen.blindSinceMs === null ? null : wholeMs(seen.blindSinceMs),
        blind_told: seen.blindTold ? 1 : 0,
      };
      await db
        .insertInto('watch_poll')
        .values({ name: ACCOUNT, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet(values))
        .execute();
    },

    setQuiet: async (channelId, hours) => {
      if (hours === null) {
        await db.deleteFrom('watch_quiet').where('channel_id', '=', channelId).execute();
        return;
      }
      const values = { start_min: hours.startMin, end_min: hours.endMin };
      await db
        .insertInto('watch_quiet')
        .values({ channel_id: channelId, ...values })
        .onConflict((oc) => oc.column('channel_id').doUpdateSet(values))
        .execute();
    },

    quiet: async () =>
      (await db.selectFrom('watch_quiet').selectAll().orderBy('channel_id').execute()).map((r) => ({
        channelId: r.channel_id,
        startMin: Number(r.start_min),
        endMin: Number(r.end_min),
      })),

    hold: async (news) => {
      await db
        .insertInto('watch_held')
        .values({
          channel_id: news.channelId,
          server_id: news.serverId,
          label: news.label,
          kind: news.kind,
          state: news.state,
          at_ms: wholeMs(news.atMs),
        })
        .execute();
    },

    takeHeld: (channelId) =>
      db.transaction().execute(async (trx) => {
        const rows = await trx.deleteFrom('watch_held').where('channel_id', '=', channelId).returningAll().execute();
        return rows.map(toHeld).sort((a, b) => a.atMs - b.atMs);
      }),

    holding: async () => (await db.selectFrom('watch_held').select('channel_id').distinct().orderBy('channel_id').execute()).map((r) => r.channel_id),

    claimNotice: async (key, nowMs, staleAfterMs) => {
      const result = await db
        .insertInto('watch_notices')
        .values({ key, at_ms: wholeMs(nowMs), told_ms: null })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) return true;
      // A claim never told, older than a lease: its instance died before posting. One caller takes it over.
      const taken = await db
        .updateTable('watch_notices')
        .set({ at_ms: wholeMs(nowMs) })
        .where('key', '=', key)
        .where('told_ms', 'is', null)
        .where('at_ms', '<=', wholeMs(nowMs - staleAfterMs))
        .executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1;
    },

    noticeTold: async (key, nowMs) => {
      await db
        .updateTable('watch_notices')
        .set({ told_ms: wholeMs(nowMs) })
        .where('key', '=', key)
        .execute();
    },

    releaseNotice: async (key) => {
      await db.deleteFrom('watch_notices').where('key', '=', key).execute();
    },

    following: async (sinceMs) => {
      const rows = await db
        .selectFrom('followed_changes')
        .select(['channel_id', 'target', 'subject'])
        .where('channel_id', 'is not', null)
        .where((eb) => eb.or([eb('ended_at_ms', 'is', null), eb('ended_at_ms', '>=', wholeMs(sinceMs))]))
        .execute();
      const found = new Map<string, FollowedServer>();
      for (const row of rows) {
        const serverId = followedServerOf(row.target, row.subject);
        if (row.channel_id === null || serverId === null) continue;
        found.set(`${row.channel_id}:${serverId}`, { channelId: row.channel_id, serverId });
      }
      return [...found.values()];
    },
  };
}
