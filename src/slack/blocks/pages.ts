import type { ActionsBlock, Button } from '@slack/types';

// A list longer than a message, paged in place (docs/product.md, Long lists):
// which page is shown, and the buttons under it, Prev and Next where there is
// such a page, then the list's Export CSV. Shared by the firewall rules, the
// backups and `/vs audit`; each list words its own pages.

/** One page of a list: its number (1-based), how many there are, where it starts, and what it shows. */
export interface Page<T> {
  page: number;
  pages: number;
  /** The index of its first item in the whole list. */
  from: number;
  shown: T[];
}

/** Page `page` of `items`, `size` a page: clamped into range (anything that is not a number is page 1). */
export function pageOf<T>(items: readonly T[], page: number, size: number): Page<T> {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(Math.max(1, Math.trunc(page) || 1), pages);
  const from = (current - 1) * size;
  return { page: current, pages, from, shown: items.slice(from, from + size) };
}

/** The action_ids of a list's Prev and Next. */
export interface PagerIds {
  prev: string;
  next: string;
}

/**
 * The buttons under a page: Prev and Next, each carrying the page it shows (`valueOf`), then Export CSV of the whole
 * list, whatever the page (`exportAs`: its action_id, and the value that says which list).
 */
export function pager(o: {
  blockId: string;
  ids: PagerIds;
  page: number;
  pages: number;
  valueOf: (page: number) => string;
  exportAs: { actionId: string; value: string };
}): ActionsBlock {
  const button = (actionId: string, text: string, value: string): Button => ({
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text },
    value,
  });
  const elements: Button[] = [];
  if (o.page > 1) elements.push(button(o.ids.prev, '← Prev', o.valueOf(o.page - 1)));
  if (o.page < o.pages) elements.push(button(o.ids.next, 'Next →', o.valueOf(o.page + 1)));
  elements.push(button(o.exportAs.actionId, 'Export CSV', o.exportAs.value));
  return { type: 'actions', block_id: o.blockId, elements };
}

/** A server's list's Prev and Next carry the server and the page to show: "<vsId>:<page>". */
export function serverPageValue(vsId: number): (page: number) => string {
  return (page) => `${vsId}:${page}`;
}

/** Reads a server's list's Prev or Next value back; null for anything it did not write. */
export function parsePageButtonValue(value: string): { vsId: number; page: number } | null {
  const m = /^([1-9][0-9]{0,15}):([1-9][0-9]{0,6})$/.exec(value);
  if (!m) return null;
  const vsId = Number(m[1]);
  const page = Number(m[2]);
  return Number.isSafeInteger(vsId) ? { vsId, page } : null;
}

/** A paging or export button whose value does not parse (out of date, or made by hand): run the list's command again. */
export function buttonOutOfDate(command: string): string {
  return `That button is out of date; run \`${command}\` again.`;
}

/** The action_ids of a list's Prev and Next, as one row of ACTIONS matches them. */
export function pagerActions(ids: PagerIds): RegExp {
  return new RegExp(`^(${ids.prev}|${ids.next})$`);
}
