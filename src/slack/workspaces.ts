// Which workspaces the bot serves: SLACK_TEAM_ID (unset: the team its bot
// token belongs to, as auth.test names it) and those VS_ALLOWED_TEAMS lists.
// A request is served only when every workspace it names is one of them: the
// workspace it was sent from and the person's own (a Slack Connect user's
// differs from the channel's), so that people of another organisation in a
// shared channel, or of another workspace of an org-wide install, are never
// taken for viewers. An org-wide install's token belongs to no one workspace:
// with it, SLACK_TEAM_ID and VS_ALLOWED_TEAMS must name each workspace served
// (docs/production.md, "Which workspaces are served").

/** Whether a request's workspaces are served; `unknown` while the bot does not know its own (auth.test has not answered). */
export type WorkspaceVerdict = 'served' | 'refused' | 'unknown';

export interface Workspaces {
  /** Decided at once when the bot's own workspace is known; null when it is not (yet). */
  decide(teams: readonly string[]): WorkspaceVerdict | null;
  /** Waits (a little) for the bot's own workspace to be learnt, then decides. */
  decideWhenKnown(teams: readonly string[]): Promise<WorkspaceVerdict>;
}

/** What auth.test said of the bot token (src/slack/bot-authorization.ts): its team, and whether it is an org-wide install. */
export interface TokenTeam {
  /** The token's workspace; undefined until auth.test answered, or for an org-wide install (it has none). */
  teamId(): string | undefined;
  /** Asks auth.test again; never throws. */
  learn(): Promise<void>;
}

/** How long a request waits for auth.test when the bot does not know its workspace yet (only until it first answers). */
const LEARN_WAIT_MS = 1500;

export function servedWorkspaces(settings: { teamId: string | null; allowedTeams: readonly string[] }, token: TokenTeam): Workspaces {
  const allowed = new Set(settings.allowedTeams);
  const decide = (teams: readonly string[]): WorkspaceVerdict | null => {
    const own = settings.teamId ?? token.teamId();
    // A request names at least its workspace: one naming none is nobody's.
    if (teams.length === 0) return 'refused';
    if (teams.every((team) => team === own || allowed.has(team))) return 'served';
    return own === undefined ? null : 'refused';
  };
  return {
    decide,
    async decideWhenKnown(teams) {
      const now = decide(teams);
      if (now !== null) return now;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([token.learn(), new Promise<void>((resolve) => (timer = setTimeout(resolve, LEARN_WAIT_MS)))]);
      clearTimeout(timer);
      return decide(teams) ?? 'unknown';
    },
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
const idOf = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Every workspace a delivery names: where it was sent from (a command's or an event's team_id, an interaction's
 * team), the person's own (an interaction's user.team_id; a message event's user_team), and where it happened (an
 * event's context_team_id; a view's team_id).
 */
export function teamsOf(body: unknown): string[] {
  if (!isObject(body)) return [];
  const event = isObject(body.event) ? body.event : {};
  const found = [
    idOf(body.team_id),
    isObject(body.team) ? idOf(body.team.id) : undefined,
    isObject(body.user) ? idOf(body.user.team_id) : undefined,
    isObject(body.view) ? idOf(body.view.team_id) : undefined,
    idOf(body.context_team_id),
    idOf(event.user_team),
    idOf(event.source_team),
  ].filter((team): team is string => team !== undefined);
  return [...new Set(found)];
}
