import { CHANGES, targetKey, type ChangeAction, type FormValues, type ReadAction, type TargetKind } from '../../../changes';
import type { Quoted } from '../../blocks/grammar';
import type { HelpGroup } from '../../blocks/messages';
import type { ListenerContext, Outcome, SlackRequest } from '../../context';
import type { NeedOf } from '../../middleware/needs';
import type { Grammar, Read, Vocabulary } from './grammar';
import { openChangeForm } from './open-change-form';

// One row of the `/vs` table: its words, its argument grammar, its usage and
// help, what it needs and what runs it. `subcommand()` checks a row and binds
// its parts, so that a line read by the row carries its own command, need and
// run, typed alike: nothing downstream looks the row up again or casts.

/** Runs a subcommand with the arguments its grammar read. */
export type CommandListener<A> = (ctx: ListenerContext, req: SlackRequest, args: A) => Promise<Outcome>;

/**
 * The needs of a row that runs a listener: everyone, an action the policy decides (a change form's row needs what its
 * change needs), or a change attempt the door decides (the freeze).
 */
export type CommandNeed = 'everyone' | ReadAction | 'change_attempt';

/** The group `/vs help` lists a row in. */
export const helpGroupOf = (row: { group?: HelpGroup } & ({ opens: unknown } | object)): HelpGroup => row.group ?? ('opens' in row ? 'changes' : 'reads');

type Does<A> =
  /** Runs its listener once the needs middleware has let the user through. */
  | { needs: CommandNeed; run: CommandListener<A> }
  /**
   * Opens a change's form (its row of CHANGE_FORMS says the rest) for the target its arguments name: by default one of
   * the change's own kind (`/vs backup restore 9`: a backup), with what else the command named as the form's values
   * (`given`: the rule to remove, the address to block); `about` another (`/vs restore 42`: a server, whose backup the
   * form picks), opened by `open`.
   */
  | {
      opens: ChangeAction;
      targetId: (args: A) => number;
      given?: (args: A) => FormValues;
      about?: TargetKind;
      open?: (ctx: ListenerContext, req: SlackRequest, id: number, args: A) => Promise<Outcome>;
    };

export type SubcommandSpec<K extends string, A extends object> = Vocabulary & {
  /** The command's name in logs and metrics (`subcommand`). */
  kind: K;
  argument: Grammar<A>;
  /** The lines `/vs help` shows for it (plain text with `code` spans): the one place its usage is explained. */
  help: readonly string[];
  /** Where `/vs help` lists it; unsaid, a row that opens a change's form is among the changes and any other among the reads. */
  group?: HelpGroup;
  /** `/vs` with nothing after it runs this row. */
  whenEmpty?: true;
} & Does<A>;

/** A line read as one subcommand. */
export interface Reading<C> {
  command: C;
  /** What running it needs, for the needs middleware. */
  need: NeedOf;
  run(ctx: ListenerContext, req: SlackRequest): Promise<Outcome>;
}

export type Subcommand<K extends string, A extends object> = SubcommandSpec<K, A> & {
  /** Reads the words after the subcommand. */
  read(args: readonly string[], quoted: Quoted): Read<Reading<{ kind: K } & A>>;
};

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The command a row reads: its kind and the fields its grammar reads. */
export type CommandOf<R> = R extends Subcommand<infer K, infer A> ? Simplify<{ kind: K } & A> : never;

export function subcommand<K extends string, A extends object>(spec: SubcommandSpec<K, A>): Subcommand<K, A> {
  const bind = (args: A): Reading<{ kind: K } & A> => {
    const command = { kind: spec.kind, ...args };
    if ('opens' in spec) {
      const { opens, open } = spec;
      const targetId = spec.targetId(args);
      const given = spec.given?.(args) ?? {};
      return {
        command,
        need: { need: { opens }, target: targetKey({ kind: spec.about ?? CHANGES[opens].targetKind, id: targetId }) },
        run: (ctx, req) => (open ? open(ctx, req, targetId, args) : openChangeForm(ctx, req, opens, targetId, given)),
      };
    }
    const { run } = spec;
    return { command, need: { need: spec.needs }, run: (ctx, req) => run(ctx, req, args) };
  };
  return {
    ...spec,
    changes: 'opens' in spec || spec.changes === true,
    read(args, quoted) {
      const read = spec.argument.read(args, quoted);
      return read.ok ? { ok: true, value: bind(read.value) } : read;
    },
  };
}
