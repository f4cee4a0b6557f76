import { parseId } from '../commands/grammar';

// Which links name a server in the cloud's control panel. Slack sends a
// link_shared event for any link of the app's unfurl domains (subdomains
// included); only `<panel>/virtual_machines/<id>`, with or without a trailing
// path, is a server link: same scheme, host and port as the panel, under its
// path, and an id as `/vs` reads one. Anything else is not ours to unfurl.

/** A link of a message that names a server, as Slack sent it (the key chat.unfurl expects). */
export interface ServerLink {
  url: string;
  vsId: number;
}

/** The server a link names, or null when it is not a server link under `panelUrl` (a base URL without a trailing slash). */
export function serverOfLink(panelUrl: string, link: string): number | null {
  let url: URL;
  let panel: URL;
  try {
    url = new URL(link);
    panel = new URL(panelUrl);
  } catch {
    return null;
  }
  // `origin` compares scheme, host and port (a default port written out counts as the same); user info is never a panel link.
  if (url.origin !== panel.origin || url.username !== '' || url.password !== '') return null;
  const base = panel.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${base}/`)) return null;
  const [collection, id, ...rest] = url.pathname.slice(base.length + 1).split('/');
  if (collection !== 'virtual_machines' || id === undefined || !/^[0-9]+$/.test(id)) return null;
  // A trailing path names a page of the server (`/firewall_rules`); an empty segment is only allowed as a final slash.
  if (rest.some((segment, i) => segment === '' && i < rest.length - 1)) return null;
  return parseId(id);
}

/** The server links among a message's links, in order, each URL once. */
export function serverLinks(panelUrl: string, links: readonly { url?: unknown }[]): ServerLink[] {
  const found = new Map<string, number>();
  for (const { url } of links) {
    if (typeof url !== 'string' || found.has(url)) continue;
    const vsId = serverOfLink(panelUrl, url);
    if (vsId !== null) found.set(url, vsId);
  }
  return [...found].map(([url, vsId]) => ({ url, vsId }));
}
