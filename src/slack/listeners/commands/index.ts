import { targetKey } from '../../../changes';
import type { Command } from '../../command';
import { CHANGE_FORMS, type ChangeForm } from '../../change-forms';
import type { CommandOutcome, Invocation, ListenerContext } from '../../context';
import type { NeedOf } from '../../middleware/needs';
import { auditCommand } from './audit';
import { autoscalingCommand } from './autoscaling';
import { firewallCommand } from './firewall';
import { helpCommand } from './help';
import { openChangeForm } from './open-change-form';
import { templatesCommand } from './templates';
import { usageCommand } from './usage';
import { whoamiCommand } from './whoami';

// The table of `/vs` subcommands: what each needs (checked by the needs
// middleware before it runs) and what runs it. The parser (command.ts) says
// which words make which subcommand. To add a subcommand: a parser entry, a
// handler file here, and a row below.

type Kind = Command['kind'];
type Of<K extends Kind> = Extract<Command, { kind: K }>;
type Handler<K extends Kind> = (ctx: ListenerContext, inv: Invocation, cmd: Of<K>) => Promise<CommandOutcome>;

type Row<K extends Kind> =
  | { needs: 'everyone' | 'read' | 'audit_read'; run: Handler<K> }
  /** Opens a change's form (the table of change forms says the rest). */
  | { opens: ChangeForm<never>; targetId: (cmd: Of<K>) => number };

export const COMMANDS: { readonly [K in Kind]: Row<K> } = {
  help: { needs: 'everyone', run: helpCommand },
  invalid: { needs: 'everyone', run: usageCommand },
  whoami: { needs: 'everyone', run: whoamiCommand },
  firewall: { needs: 'read', run: firewallCommand },
  autoscaling: { needs: 'read', run: autoscalingCommand },
  templates: { needs: 'read', run: templatesCommand },
  audit: { needs: 'audit_read', run: auditCommand },
  disk_add: { opens: CHANGE_FORMS.disk_add, targetId: (cmd) => cmd.vsId },
  backup_restore: { opens: CHANGE_FORMS.backup_restore, targetId: (cmd) => cmd.backupId },
};

function rowOf<K extends Kind>(cmd: Of<K>): Row<K> {
  return COMMANDS[cmd.kind];
}

/** What the parsed subcommand needs, for the needs middleware. */
export function commandNeeds(cmd: Command): NeedOf {
  const row = rowOf(cmd);
  if ('needs' in row) return { need: row.needs };
  const { change } = row.opens;
  return { need: { opens: change.action }, target: targetKey({ kind: change.targetKind, id: row.targetId(cmd) }) };
}

/** Runs the parsed subcommand. */
export function runCommand(ctx: ListenerContext, inv: Invocation, cmd: Command): Promise<CommandOutcome> {
  const row = rowOf(cmd);
  if ('needs' in row) return row.run(ctx, inv, cmd);
  return openChangeForm(ctx, inv, row.opens, row.targetId(cmd));
}
