import { request } from 'undici';

// The page's "Control panel (sandbox)": someone in the cloud's control panel acting on a server behind the bot's
// back (power it off or on, lock it, fail a transaction), so that a watch can be seen at work. The page names a
// server by its label and an act; the page server finds the server and passes the act on to the sandbox's
// `POST /control/virtual_machines/:id/<act>`, adding the API's credentials itself: they never reach the browser.

/** The sandbox the page's control acts on (local mode's built-in one). */
export interface SandboxControl {
  /** The sandbox's base URL (http://127.0.0.1:<port>). */
  readonly url: string;
  /** The Authorization header its control endpoint wants (the API's credentials); added here, never sent to the page. */
  readonly authorization: string;
  /** Its servers, by id and label, read each time (the picker's choices). */
  servers(): readonly { id: number; label: string }[];
}

/** The page's acts: the path's last part, what the sandbox is sent, and what the status line says once done. */
const ACTS: Record<string, { act: string; body?: { minutes: number }; done: string }> = {
  power_off: { act: 'power_off', done: 'powered off' },
  power_on: { act: 'power_on', done: 'powered on' },
  lock: { act: 'lock', body: { minutes: 10 }, done: 'locked for 10 minutes (a transaction of the control panel runs on it)' },
  fail: { act: 'fail', done: 'has a failed transaction' },
};

export type ControlAnswer = { status: number; body: { ok: true; message: string } | { ok: false; error: string } };

/** What the page's picker offers: the servers' labels and ids, never the sandbox's address or credentials. */
export function controlServers(control: SandboxControl | undefined): { id: number; label: string }[] | null {
  return control ? control.servers().map(({ id, label }) => ({ id, label })) : null;
}

/** Acts on the server labelled `server` as the control panel would; a clear message for an unknown act or server. */
export async function controlAct(control: SandboxControl | undefined, actName: string, server: unknown): Promise<ControlAnswer> {
  if (!control) return failed(404, 'There is no sandbox to act on here: the control panel works in local mode, on the built-in sandbox.');
  const act = Object.hasOwn(ACTS, actName) ? ACTS[actName] : undefined;
  if (!act) return failed(404, `“${actName.slice(0, 40)}” is not something the control panel does: ${Object.keys(ACTS).join(', ')}.`);
  const label = typeof server === 'string' ? server.trim() : '';
  if (label === '') return failed(400, 'Pick a server first.');
  const servers = control.servers();
  const found = servers.find((s) => s.label === label) ?? (/^[0-9]{1,15}$/.test(label) ? servers.find((s) => s.id === Number(label)) : undefined);
  if (!found) {
    const known = servers.map((s) => s.label);
    const more = known.length > 10 ? `, and ${known.length - 10} more` : '';
    return failed(400, `The sandbox has no server labelled “${label.slice(0, 60)}”: ${known.slice(0, 10).join(', ')}${more}.`);
  }
  const answer = await request(`${control.url}/control/virtual_machines/${found.id}/${act.act}`, {
    method: 'POST',
    headers: { authorization: control.authorization, 'content-type': 'application/json' },
    body: JSON.stringify(act.body ?? {}),
  });
  const text = await answer.body.text();
  const name = `${found.label} (VS ${found.id})`;
  if (answer.statusCode === 200) return { status: 200, body: { ok: true, message: `${name} ${act.done}, from the control panel.` } };
  let why = `the sandbox answered ${answer.statusCode}`;
  try {
    const errors = (JSON.parse(text) as { errors?: unknown }).errors;
    if (Array.isArray(errors) && typeof errors[0] === 'string') why = errors[0];
  } catch {
    // Not JSON: the status says enough.
  }
  return failed(answer.statusCode === 422 ? 409 : 502, `${name}: ${why}.`);
}

function failed(status: number, error: string): ControlAnswer {
  return { status, body: { ok: false, error } };
}
