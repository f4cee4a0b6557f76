import { call, postJson } from './http';
import { useSandbox } from './started';

// The control panel's acts (POST /control/virtual_machines/:id/<act>): someone powering a server off or on, locking it
// for a while, or failing a transaction on it, behind the bot's back. The clock is the test's.

const T0 = Date.parse('2026-03-14T09:00:00Z');
let clock = T0;
const sandbox = useSandbox({ now: () => new Date(clock) });
beforeEach(() => {
  clock = T0;
});

type Json = Record<string, unknown>;
const server = async (id: number) => (JSON.parse((await call(sandbox, `/virtual_machines/${id}.json`)).text) as { virtual_machine: Json }).virtual_machine;
const act = (id: number | string, what: string, body: unknown = {}) => postJson(sandbox, `/control/virtual_machines/${id}/${what}`, body);

describe('the control panel’s acts', () => {
  it('powers a server off and on at once, its record updated; one already so is refused (422)', async () => {
    const off = await act(42, 'power_off');
    expect(off.status).toBe(200);
    expect(await server(42)).toMatchObject({ booted: false, updated_at: '2026-03-14T09:00:00+00:00' });
    expect((await act(42, 'power_off')).status).toBe(422);
    clock += 5_000;
    expect((await act(42, 'power_on')).status).toBe(200);
    expect(await server(42)).toMatchObject({ booted: true, updated_at: '2026-03-14T09:00:05+00:00' });
  });

  it('locks a server for the minutes asked (a rebuild_network transaction), unlocked after', async () => {
    const locked = await act(44, 'lock', { minutes: 20 });
    expect(locked.status).toBe(200);
    const { transaction } = JSON.parse(locked.text) as { transaction: { id: number; action: string; status: string } };
    expect(transaction).toMatchObject({ action: 'rebuild_network', status: 'running' });
    expect(await server(44)).toMatchObject({ locked: true });
    clock += 20 * 60_000 - 1;
    expect(await server(44)).toMatchObject({ locked: true });
    clock += 1;
    expect(await server(44)).toMatchObject({ locked: false });
    expect((await act(44, 'lock', { minutes: 0 })).status).toBe(422);
  });

  it('fails a transaction on a server at once, listed among the account’s', async () => {
    const failed = await act(44, 'fail');
    const { transaction } = JSON.parse(failed.text) as { transaction: { id: number; status: string } };
    expect(transaction.status).toBe('failed');
    const listed = JSON.parse((await call(sandbox, '/transactions.json')).text) as { transaction: Json }[];
    expect(listed[0]?.transaction).toMatchObject({ id: transaction.id, status: 'failed', parent_type: 'VirtualMachine', parent_id: 44 });
  });

  it('needs the API’s credentials; an unknown server is 404, and an unknown act no route', async () => {
    expect((await call(sandbox, '/control/virtual_machines/42/power_off', { method: 'POST', auth: null })).status).toBe(401);
    expect((await act(999, 'power_off')).status).toBe(404);
    expect((await act(42, 'explode')).status).toBe(404);
    expect(await server(42)).toMatchObject({ booted: true });
  });
});
