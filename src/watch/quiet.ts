import type { HeldNews, QuietHours } from '../store/watches';
import type { Notice } from './diff';

// Quiet hours (docs/product.md, Watches: the bot speaks first): a channel's hours, in VS_TIMEZONE, during which power
// and lock news is held, to be summed up in one message when they end; failures, disappearances and blindness are
// told at once. Pure: the clock and the time zone are given.

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** `22:00-07:00` → minutes of the day (past midnight when the end is before the start); why not, else. */
export function parseQuietHours(text: string): { startMin: number; endMin: number } | { error: string } {
  const parts = text.trim().split('-');
  if (parts.length !== 2) return { error: 'quiet hours are two times, HH:MM-HH:MM (for instance 22:00-07:00)' };
  const [start, end] = parts.map((p) => HHMM.exec(p.trim()));
  if (!start || !end) return { error: 'each time is HH:MM on a 24-hour clock, from 00:00 to 23:59' };
  const startMin = Number(start[1]) * 60 + Number(start[2]);
  const endMin = Number(end[1]) * 60 + Number(end[2]);
  if (startMin === endMin) return { error: 'quiet hours must start and end at different times' };
  return { startMin, endMin };
}

/** The minute of the day at `nowMs` in the time zone (an IANA name such as `Europe/Paris`). */
export function minuteOfDay(nowMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(nowMs));
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return hour * 60 + minute;
}

/** Whether the channel's quiet hours are on at `nowMs`: from the start (included) to the end (excluded). */
export function isQuiet(hours: Pick<QuietHours, 'startMin' | 'endMin'>, nowMs: number, timeZone: string): boolean {
  const minute = minuteOfDay(nowMs, timeZone);
  return hours.startMin < hours.endMin ? minute >= hours.startMin && minute < hours.endMin : minute >= hours.startMin || minute < hours.endMin;
}

/** Whether quiet hours hold this notice: power and lock news only. */
export function heldByQuietHours(notice: Pick<Notice, 'event'>): boolean {
  return notice.event === 'power' || notice.event === 'lock';
}

/** The news to keep for the summary. */
export function heldNewsOf(notice: Notice, atMs: number): HeldNews {
  return { channelId: notice.channelId, serverId: notice.serverId, label: notice.label, kind: notice.kind, state: notice.state, atMs };
}

/** One server's held news, for the summary: how many times each kind happened, in order of first, and its last state. */
export interface QuietSummaryLine {
  serverId: number;
  label: string | null;
  kinds: { kind: string; times: number }[];
  lastState: string;
}

/** Held news (oldest first) summed up by server, in the order each server was first told. */
export function summarizeHeld(held: readonly HeldNews[]): QuietSummaryLine[] {
  const lines = new Map<number, QuietSummaryLine>();
  for (const news of [...held].sort((a, b) => a.atMs - b.atMs)) {
    const line = lines.get(news.serverId) ?? { serverId: news.serverId, label: news.label, kinds: [], lastState: news.state };
    const kind = line.kinds.find((k) => k.kind === news.kind);
    if (kind) kind.times += 1;
    else line.kinds.push({ kind: news.kind, times: 1 });
    line.lastState = news.state;
    line.label = news.label ?? line.label;
    lines.set(news.serverId, line);
  }
  return [...lines.values()];
}
