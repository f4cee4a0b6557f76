// Sizes and ages in words, the same in every message, form and step: a
// backup's size (the cloud gives kB), memory (MB), disks (GB), and how long
// ago something happened, counted from the bot's clock so that every reader
// of one message reads the same age.

const KB_PER_MB = 1024;
const KB_PER_GB = 1024 * 1024;

/** A number with one decimal below ten, whole above: 1.8, 5, 70. */
function amount(n: number): string {
  const rounded = n < 10 ? Math.round(n * 10) / 10 : Math.round(n);
  return String(rounded);
}

/** A size given in kB (docs/cloud-api.md, Backups: `backup_size`): "5 GB", "1.8 GB", "3 MB", "512 kB". */
export function sizeFromKb(kb: number): string {
  if (kb >= KB_PER_GB) return `${amount(kb / KB_PER_GB)} GB`;
  if (kb >= KB_PER_MB) return `${amount(kb / KB_PER_MB)} MB`;
  return `${Math.max(0, Math.round(kb))} kB`;
}

/** Memory, given in MB (docs/cloud-api.md, The server): "4 GB", "512 MB". */
export function sizeFromMb(mb: number): string {
  return sizeFromKb(mb * KB_PER_MB);
}

/** How long from `at` to `now` (epoch milliseconds), in words: "5 minutes", "31 hours", "3 days"; null under a minute. */
function elapsed(at: number, now: number): string | null {
  const minutes = Math.floor((now - at) / 60_000);
  if (minutes < 1) return null;
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.floor(minutes / 60);
  // Up to two days in hours: "31 hours ago" says more than "1 day ago" in an incident.
  if (hours < 48) return `${hours} hour${hours === 1 ? '' : 's'}`;
  return `${Math.floor(hours / 24)} days`;
}

/** How long before `now` something happened: "just now", "5 minutes ago", "31 hours ago", "3 days ago". */
export function ago(at: number, now: number): string {
  const span = elapsed(at, now);
  return span === null ? 'just now' : `${span} ago`;
}
