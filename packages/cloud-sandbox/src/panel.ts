import type { SandboxState } from './state';
import type { SandboxServer, SandboxTransaction } from './types';

// The sandbox's control panel, as far as a person following a link from a chat message needs it: a server's page,
// with its power and lock, its disks and its transactions, newest first, a failed one with its log. A real cloud's
// panel sits behind its own login in a browser; the sandbox's data is made up, so its pages are open, and served only
// to a browser's GET (Accept: text/html, no .json or .xml suffix), never in place of an API answer. Everything
// shown is escaped: labels and logs are text, never markup.

/** A page of the panel: `/virtual_machines/:id` and `/virtual_machines/:id/transactions` (the same page). */
export const PANEL_PAGE = /^\/virtual_machines\/(\d{1,15})(?:\/transactions)?\/?$/;

/** Whether a request is a browser's asking for a page of the panel: a GET of a page's path, HTML accepted, no API suffix. */
export function panelPageId(method: string | undefined, pathname: string, accept: string | undefined): number | null {
  if ((method ?? 'GET').toUpperCase() !== 'GET' || !/\btext\/html\b/i.test(accept ?? '')) return null;
  const m = PANEL_PAGE.exec(pathname);
  return m ? Number(m[1]) : null;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const cell = (value: string | number | boolean | null | undefined) => `<td>${escapeHtml(value === null || value === undefined ? '—' : String(value))}</td>`;

/** The server's page: its state, disks and transactions; a page saying it is not known for an unknown id (404). */
export function panelPage(state: SandboxState, id: number): { status: number; html: string } {
  const server = state.server(id);
  if (!server) return { status: 404, html: page(`VS ${id} — not found`, `<p>No server ${id} in this sandbox.</p>`) };
  const lock = state.lockOf('servers', server.id);
  return {
    status: 200,
    html: page(`${server.label} (VS ${server.id})`, [summary(server, lock), disks(server, state), transactions(state.transactionsOf(server))].join('\n')),
  };
}

function summary(server: SandboxServer, lock: SandboxTransaction | undefined): string {
  const power = server.suspended ? 'suspended' : server.booted ? (server.recovery_mode ? 'on, in the recovery image' : 'on') : 'off';
  const locked = lock ? `locked by transaction ${lock.id} (${lock.action}, ${lock.status})` : 'unlocked';
  return `<p>${escapeHtml(server.hostname)} · <strong>${escapeHtml(power)}</strong> · <strong>${escapeHtml(locked)}</strong></p>`;
}

function disks(server: SandboxServer, state: SandboxState): string {
  const rows = server.disks.map((d) => {
    const locked = d.locked || state.lockOf('disks', d.id) !== undefined;
    const cells = [
      d.id,
      d.label,
      `${d.disk_size} GB ${d.disk_type}`,
      d.mount_point || (d.is_swap ? 'swap' : null),
      d.built ? 'built' : 'not built',
      locked ? 'locked' : 'unlocked',
    ];
    return `<tr>${cells.map(cell).join('')}</tr>`;
  });
  return table('Disks', ['Disk', 'Label', 'Size', 'Mount point', 'Built', 'Lock'], rows);
}

function transactions(list: readonly SandboxTransaction[]): string {
  if (list.length === 0) return '<h2>Transactions</h2>\n<p>No transactions.</p>';
  const rows = list.map((t) => {
    const log =
      t.status === 'failed' && t.log_output
        ? `<tr class="log"><td colspan="6"><details><summary>Log of transaction ${t.id}</summary><pre>${escapeHtml(t.log_output)}</pre></details></td></tr>`
        : '';
    const cells = [t.id, t.action, t.status, `${t.parent_type} ${t.parent_id}`, t.created_at, t.updated_at];
    return `<tr class="${escapeHtml(t.status)}">${cells.map(cell).join('')}</tr>${log}`;
  });
  return table('Transactions', ['Transaction', 'Action', 'Status', 'On', 'Created', 'Updated'], rows);
}

function table(title: string, headers: readonly string[], rows: readonly string[]): string {
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  return `<h2>${escapeHtml(title)}</h2>\n<table><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

const STYLE = [
  'body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#1d1c1d}',
  'table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}',
  'tr.failed td{background:#fde8e8}tr.cancelled td{background:#eee}pre{white-space:pre-wrap;margin:0}.note{color:#616061}',
].join('');

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · sandbox control panel</title>
<style>${STYLE}</style>
</head><body>
<p class="note">Sandbox data — not a real cloud account.</p>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}
