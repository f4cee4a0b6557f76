import type { KnownBlock } from '@slack/types';
import type { NamedServer, Resolution } from '../../cloud/names';
import { context, escapeMrkdwn, fallback, mrkdwn, type Rendered, safe, section, truncate, withSandbox } from './mrkdwn';

// Servers by name (docs/product.md): a server is named as "label (VS id)"
// everywhere, and a name that is not one server's is answered with the
// candidates or the closest names, never guessed.

/** The action_id of the buttons that pick one of several servers a name matches. */
export const PICK_SERVER = 'pick_server';

/** How every message names a server: "web-1 (VS 42)", or "VS 42" when its label is not known. */
export function serverName(id: number, label: string | null | undefined): string {
  const shown = label?.trim();
  return shown ? `${shown} (VS ${id})` : `VS ${id}`;
}

/** The same, made safe for mrkdwn (a label is the cloud's text, not ours: escaped, invisible formatting shown). */
export function serverNameMrkdwn(id: number, label: string | null | undefined): string {
  return safe(serverName(id, label), 200);
}

function whatElse(server: NamedServer): string {
  const parts = [server.hostname, server.addresses[0]].filter((p): p is string => typeof p === 'string' && p !== '' && p !== server.label);
  return parts.length === 0 ? '' : ` · ${escapeMrkdwn(parts.join(' · '))}`;
}

/**
 * A name that matches several servers: each with a button that runs the same command on that one. `lineFor` is the
 * command as typed, with the server's id in place of the name (the button's value, read as if typed).
 */
export function renderSeveralServers({
  name,
  servers,
  lineFor,
  sandbox,
}: {
  name: string;
  servers: readonly NamedServer[];
  lineFor: (id: number) => string;
  sandbox: boolean;
}): Rendered {
  const shown = servers.slice(0, 10);
  const typed = escapeMrkdwn(truncate(name, 60));
  const blocks: KnownBlock[] = [section(`*${typed}* names ${servers.length} servers. Which one?`)];
  for (const server of shown) {
    blocks.push({
      type: 'section',
      // Each button's block named, so a click says which of the servers was picked (the action_id is the same).
      block_id: `${PICK_SERVER}_${server.id}`,
      text: mrkdwn(`${serverNameMrkdwn(server.id, server.label)}${whatElse(server)}`),
      accessory: {
        type: 'button',
        action_id: PICK_SERVER,
        text: { type: 'plain_text', text: truncate(`Use ${serverName(server.id, server.label)}`, 75) },
        value: lineFor(server.id),
      },
    });
  }
  if (servers.length > shown.length) blocks.push(context(`${servers.length - shown.length} more: type more of the name, or the id.`));
  return {
    text: fallback(`${truncate(name, 60)} names ${servers.length} servers: ${shown.map((s) => serverName(s.id, s.label)).join(', ')}`, sandbox),
    blocks: withSandbox(blocks, sandbox),
  };
}

/** A name that matches no server: says so, and offers the closest names. */
export function renderNoServerNamed({ name, closest, sandbox }: { name: string; closest: readonly NamedServer[]; sandbox: boolean }): Rendered {
  const typed = truncate(name, 60);
  const offer = closest.length === 0 ? '' : ` Did you mean ${closest.map((s) => serverName(s.id, s.label)).join(', or ')}?`;
  const text = `No server is named ${typed}.${offer}`;
  return {
    text: fallback(text, sandbox),
    blocks: withSandbox(
      [
        section(`:warning: No server is named *${escapeMrkdwn(typed)}*.${escapeMrkdwn(offer)}`),
        context('A server is named by its id (`42`), its label or hostname (`web-1`), or one of its addresses.'),
      ],
      sandbox,
    ),
  };
}

/** The account's server list could not be read, so a name could not be looked up. */
export function renderNamesUnreadable({ name, sandbox }: { name: string; sandbox: boolean }): Rendered {
  const text = `Could not look up the server named ${truncate(name, 60)}: the cloud API's server list could not be read. Try its id (\`/vs server 42\`).`;
  return { text: fallback(text, sandbox), blocks: withSandbox([section(`:warning: ${escapeMrkdwn(text)}`)], sandbox) };
}

/** Under a form's server field, when what was typed is not one server: the candidates, or the closest names. */
export function serverFieldError(found: Exclude<Resolution, { kind: 'one' }> | { kind: 'unreadable'; name: string }): string {
  const typed = truncate(found.name, 40);
  if (found.kind === 'unreadable') return truncate(`Could not look up ${typed} (the server list could not be read in time): enter the server's id`, 150);
  if (found.kind === 'several') {
    return truncate(`${typed} names ${found.servers.length} servers: ${found.servers.map((s) => serverName(s.id, s.label)).join(', ')}. Enter one's id`, 150);
  }
  const offer = found.closest.length === 0 ? '' : ` Did you mean ${found.closest.map((s) => serverName(s.id, s.label)).join(', or ')}?`;
  return truncate(`No server is named ${typed}.${offer}`, 150);
}
