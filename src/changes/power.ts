import { z } from 'zod';
import type { CloudClient } from '../cloud/client.types';
import { isFinalStatus, type Server, type Transaction, type TransactionStatus } from '../cloud/schemas';
import { firstMessages, type FormValidation, type FormValues } from './disk-form';
import { MAX_REASON_LENGTH } from './restore-form';
import { typedAgain } from './typed-again';

// The power actions (docs/product.md, Power actions; docs/cloud-api.md, Power
// actions): four changes of one form. The form's `power_action` chooses the
// change, and a reboot into the recovery image is a reboot with a body. Before
// a power action is sent (and before its form opens) the server is read: one
// that is locked by a transaction is busy, and one whose state does not allow
// the action is refused with its state. Data only: src/slack/blocks words it.

/** The form's choices (`power_action`), each the change it makes. */
export const POWER_CHOICES = {
  startup: 'power_start',
  shutdown: 'power_shutdown',
  reboot: 'power_reboot',
  reboot_recovery: 'power_reboot',
  stop: 'power_stop',
} as const;
export type PowerChoice = keyof typeof POWER_CHOICES;
export type PowerAction = (typeof POWER_CHOICES)[PowerChoice];
export const POWER_CHOICE_NAMES = Object.keys(POWER_CHOICES) as PowerChoice[];

/** The choices that make `action`, in the form's order. */
export const choicesOf = (action: PowerAction): PowerChoice[] => POWER_CHOICE_NAMES.filter((choice) => POWER_CHOICES[choice] === action);

/** Whether a change is one of the power actions. */
export const isPowerAction = (action: string): action is PowerAction => (Object.values(POWER_CHOICES) as string[]).includes(action);

/** The change a choice makes; undefined for anything that is not a choice. */
export function powerActionOf(choice: unknown): PowerAction | undefined {
  return typeof choice === 'string' && Object.hasOwn(POWER_CHOICES, choice) ? POWER_CHOICES[choice as PowerChoice] : undefined;
}

/** A validated power action: what was chosen, and why. */
export interface PowerParams {
  power_action: PowerChoice;
  reason: string;
}

/** Reads back what the audit kept of a power action (an approved one runs with it). */
export const StoredPower = z.object({ power_action: z.enum(POWER_CHOICE_NAMES), reason: z.string().min(1).max(MAX_REASON_LENGTH) });

/** The power form for one server and one change: a choice of that change's, the server id typed again, a reason. */
export function validatePowerForm(action: PowerAction, vsId: number, values: FormValues): FormValidation<PowerParams> {
  const choices = choicesOf(action);
  const form = z.object({
    power_action: z.enum(choices as [PowerChoice, ...PowerChoice[]], { error: 'Choose what to do with the server' }),
    confirm: typedAgain(vsId, `Type the server id (${vsId}) to confirm`),
    reason: z
      .string({ error: 'Give the reason as text' })
      .optional()
      .transform((s) => s?.trim() ?? '')
      .pipe(z.string().min(1, 'Give the reason: it is kept in the audit trail').max(MAX_REASON_LENGTH, `At most ${MAX_REASON_LENGTH} characters`)),
  });
  const parsed = form.safeParse(values);
  if (!parsed.success) return { ok: false, fieldErrors: firstMessages(parsed.error) };
  return { ok: true, params: { power_action: parsed.data.power_action, reason: parsed.data.reason } };
}

/** A server's power as the form and the refusals say it. */
export type PowerState = 'on' | 'off' | 'recovery' | 'suspended';

/** What a power action sees of its server: its name and state. */
export interface ServerState {
  label: string | null;
  power: PowerState;
  locked: boolean;
}

/** A transaction that holds a server, named by its action (src/slack/blocks words it). */
export interface RunningTransaction {
  id: number;
  action: string;
  status: TransactionStatus;
}

/** Whether a power action may be made to its server as it stands. */
export type PowerInspection =
  | { outcome: 'fit'; state: ServerState }
  /** Locked by a running transaction: nothing may change it until it has finished. */
  | { outcome: 'busy'; state: ServerState; transaction: RunningTransaction | null }
  /** Its state does not allow the change (starting a server that is on, stopping one that is off). */
  | { outcome: 'unfit'; state: ServerState };

/** The reads a power action makes before it is sent (docs/cloud-api.md, The server, Transactions). */
export type PowerReads = Pick<CloudClient, 'getServer' | 'listTransactions'>;

export function serverState(server: Pick<Server, 'label' | 'booted' | 'locked' | 'suspended' | 'recovery_mode'>): ServerState {
  const power: PowerState = server.suspended ? 'suspended' : server.recovery_mode ? 'recovery' : server.booted ? 'on' : 'off';
  return { label: server.label ?? null, power, locked: server.locked === true };
}

/** Whether a server in `power` may take `action`: started when off; shut down, stopped or rebooted when on (or in recovery). */
export function fits(action: PowerAction, power: PowerState): boolean {
  if (power === 'suspended') return false;
  return action === 'power_start' ? power === 'off' : power !== 'off';
}

/**
 * The transaction holding a server, of its transactions newest first: the one running, else the oldest still pending
 * (the next to run: a disk's format waits for its build).
 */
export function runningTransaction<T extends Pick<Transaction, 'status'>>(transactions: readonly T[]): T | undefined {
  // Not final: pending, running, or a status this version does not know (still running, as far as we can tell).
  return transactions.find((t) => t.status === 'running') ?? [...transactions].reverse().find((t) => !isFinalStatus(t.status));
}

/** Reads the server and tells whether `action` may be made now; a locked server's running transaction is looked up to be named. */
/**
 * A server read before a change that any state allows but a lock forbids (a backup taken, a firewall rule added or
 * removed): busy while a transaction locks it, named by that transaction; fit otherwise. Sent on a locked server, the
 * cloud would refuse it, or, for a change of two requests (a rule stored, then the rules applied), do the first and
 * refuse the second.
 */
export async function inspectServerLock(cloud: PowerReads, vsId: number): Promise<PowerInspection> {
  const state = serverState(await cloud.getServer(vsId));
  if (!state.locked) return { outcome: 'fit', state };
  const transactions = await cloud.listTransactions(vsId).catch(() => []);
  const running = runningTransaction(transactions);
  return { outcome: 'busy', state, transaction: running ? { id: running.id, action: running.action, status: running.status } : null };
}

export async function inspectPower(cloud: PowerReads, action: PowerAction, vsId: number): Promise<PowerInspection> {
  const state = serverState(await cloud.getServer(vsId));
  if (state.locked) {
    // Only to name it: a cloud that cannot list them still refuses the change, without the name.
    const transactions = await cloud.listTransactions(vsId).catch(() => []);
    const running = runningTransaction(transactions);
    return { outcome: 'busy', state, transaction: running ? { id: running.id, action: running.action, status: running.status } : null };
  }
  return fits(action, state.power) ? { outcome: 'fit', state } : { outcome: 'unfit', state };
}
