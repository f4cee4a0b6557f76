import { randomBytes } from 'node:crypto';
import { PAGERDUTY_STANDIN, SANDBOX_ACCOUNT_ID, SANDBOX_API_KEY } from '@vs-chatops/cloud-sandbox';
import { AUDIT_CHANNEL, INCIDENT_CHANNEL, MADE_UP_ROLES } from '@vs-chatops/slack-standin';
import { z } from 'zod';
import { ConfigError } from './errors';
import { parseAddressForm } from './firewall/address';

// The only reader of process.env. One zod schema names every setting once,
// with its default; its transform shapes the frozen Config, whose type is
// inferred from it. Adding a setting is one line in EnvSchema, one field in
// the transform, plus its row in README's table and its line in .env.example
// (test/config.test.ts checks both; docs/architecture.md, "Where to add
// things"). Every problem is reported at once, each with what to do; secret
// values never appear in a message, not even a bad one.

const slackUserOrGroupId = /^[UWS][A-Z0-9]{2,}$/;
// Public and private channels; a DM (D…) cannot be an incident or audit channel, nor be linked as one.
const slackChannelId = /^[CG][A-Z0-9]{2,}$/;
// A workspace (T…); an organisation's id (E…) is not one: an org-wide install names each of its workspaces.
const slackTeamId = /^T[A-Z0-9]{2,}$/;

const idList = (what: string, pattern: RegExp, example: string) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((ids) => ids.every((id) => pattern.test(id)), {
      message: `must be a comma-separated list of ${what} (e.g. ${example})`,
    });

/** An address (`10.0.0.5`, `fd00::1`) or a CIDR block (`10.0.0.0/8`), as VS_TRUSTED_PROXIES lists proxies (read as the guard reads them). */
function isAddressOrBlock(text: string): boolean {
  return !text.includes('-') && parseAddressForm(text).kind === 'interval';
}

const positiveInt = (what: string) =>
  z
    .string()
    .regex(/^\d+$/, `must be ${what} (a whole number)`)
    .transform(Number)
    .refine((n) => n > 0, `must be ${what} greater than 0`);

/**
 * VS_APPROVALS: the names of the changes that wait for a second person. Only their spelling is checked here (this
 * module knows no change); which changes there are is the door's table, which start-up checks them against
 * (src/changes/definitions.ts, approvalActions).
 */
const actionList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .refine((names) => names.every((name) => /^[a-z][a-z0-9_]*$/.test(name)), {
    message: 'must be a comma-separated list of change actions (e.g. disk_add,power_reboot)',
  });

/** The longest wait between two polls of a followed change: VS_FOLLOW_INTERVAL_S backs off to it (docs/product.md, Following a change to its end). */
export const FOLLOW_BACKOFF_MAX_S = 30;

const LogLevel = z.enum(['debug', 'info', 'warn', 'error'], { error: 'must be debug, info, warn or error' });
export type LogLevel = z.infer<typeof LogLevel>;

/** The largest disk the cloud API takes (docs/cloud-api.md, Add a disk); VS_MAX_DISK_GB may set a smaller cap, never a larger one. */
export const MAX_DISK_GB = 65_536;
/** VS_MAX_DISK_GB's default: the largest disk the add-disk form accepts. */
export const DEFAULT_MAX_DISK_GB = 2048;

/** A PagerDuty object id (a schedule, an escalation policy): `PABC123`. */
const pagerDutyId = /^P[A-Z0-9]{5,19}$/;

/** The roles on-call may grant (VS_ONCALL_ROLE): never `none`. */
const GrantedRole = z.enum(['viewer', 'operator', 'admin'], { error: 'must be viewer, operator or admin' });

/** PagerDuty's own addresses (spec: its REST API and Events API v2). */
export const PAGERDUTY_API_URL = 'https://api.pagerduty.com';
export const PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com';

/** The longest break-glass window VS_BREAKGLASS_MIN accepts: a day; an incident that lasts longer opens another. */
export const MAX_BREAKGLASS_MIN = 1440;

/** VS_API_URL's value that runs the built-in simulator in-process. */
const SANDBOX = 'sandbox';

/** OTEL_SERVICE_NAME's default: the `service.name` of every span. */
export const DEFAULT_SERVICE_NAME = 'vs-chatops';

/**
 * `key=value,key=value`, as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES are written (values
 * percent-encoded, as the OpenTelemetry specification says). The message never quotes the value: headers carry
 * credentials.
 */
const keyValueList = (what: string, example: string) =>
  z
    .string()
    .refine((s) => s.split(',').every((item) => item.trim() === '' || /^\s*[^=\s]+\s*=/.test(item)), {
      message: `must be a comma-separated list of ${what} written key=value (e.g. ${example})`,
    })
    .transform((s) => {
      const pairs: Record<string, string> = {};
      for (const item of s.split(',')) {
        const at = item.indexOf('=');
        if (at < 0) continue;
        pairs[item.slice(0, at).trim()] = percentDecoded(item.slice(at + 1).trim());
      }
      return pairs;
    });

function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // A stray % (not an escape): the value as written.
    return value;
  }
}

/** The samplers of OTEL_TRACES_SAMPLER the bot offers (the specification's, less the Jaeger and X-Ray ones). */
const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

/** An IANA time zone the runtime knows (`Europe/Paris`, `UTC`). */
function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const EnvSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string()
    .refine((s) => s.startsWith('xoxb-'), 'must be a bot token starting with xoxb-')
    .optional(),
  SLACK_SIGNING_SECRET: z.string().optional(),
  SLACK_APP_TOKEN: z
    .string()
    .refine((s) => s.startsWith('xapp-'), 'must be an app-level token starting with xapp- (Basic Information → App-Level Tokens)')
    .optional(),
  PORT: positiveInt('a TCP port')
    .refine((n) => n <= 65535, 'must be a TCP port (1–65535)')
    .default(3000),
  /** Unset: /metrics is served on PORT. */
  VS_METRICS_PORT: positiveInt('a TCP port')
    .refine((n) => n <= 65535, 'must be a TCP port (1–65535)')
    .optional(),
  /** Unset: the bot token's own workspace, as auth.test names it. */
  SLACK_TEAM_ID: z.string().regex(slackTeamId, 'must be a Slack workspace id (T…, "Copy workspace ID" in its admin pages, or auth.test\'s team_id)').optional(),
  VS_ALLOWED_TEAMS: idList('Slack workspace ids (T…)', slackTeamId, 'T024BE7LD,T0R7GR8KF').optional(),
  VS_TRUSTED_PROXIES: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((forms) => forms.every(isAddressOrBlock), { message: 'must be a comma-separated list of addresses or CIDR blocks (e.g. 10.0.0.5,10.1.0.0/16)' })
    .optional(),
  SLACK_API_URL: z.url({ error: 'must be a URL such as https://slack.com/api/' }).optional(),
  /** Defaults to the sandbox in local mode only: with Slack it is required (crossFieldProblems). */
  VS_API_URL: z.union([z.literal(SANDBOX), z.url({ protocol: /^https?$/, error: 'must be "sandbox" or an http(s) URL of the cloud API' })]).default(SANDBOX),
  /** Unset: the scheme and host of VS_API_URL (with VS_API_URL=sandbox, the sandbox's own base URL, known once it listens). */
  VS_PANEL_URL: z
    .url({ protocol: /^https?$/, error: 'must be the http(s) base URL of the control panel, e.g. https://cloud.example.com' })
    .refine((s) => {
      // Not a URL at all is the check above's to report.
      const url = urlOf(s);
      return url === null || (url.username === '' && url.password === '' && url.search === '' && url.hash === '');
    }, 'must be a base URL without user info, query or fragment, e.g. https://cloud.example.com')
    .transform(panelBase)
    .optional(),
  VS_ACCOUNT_ID: z.string().optional(),
  VS_API_KEY: z.string().optional(),
  VS_API_FORMAT: z.enum(['json', 'xml'], { error: 'must be json or xml' }).default('json'),
  VS_API_TIMEOUT_MS: positiveInt('a timeout in milliseconds').default(10000),
  VS_API_MAX_CONNECTIONS: positiveInt('a number of connections')
    .refine((n) => n >= 2, 'must be at least 2 (one for reads, one kept for changes)')
    .default(16),
  /** Unset: defaultChangeConnections(VS_API_MAX_CONNECTIONS). */
  VS_API_CHANGE_CONNECTIONS: positiveInt('a number of connections').optional(),
  VS_API_CONNECTION_WAIT_MS: positiveInt('a wait in milliseconds').default(5000),
  VS_READS_PER_USER_PER_MINUTE: positiveInt('a number of reads').default(30),
  VS_CHANGES_PER_USER_PER_MINUTE: positiveInt('a number of change attempts').default(10),
  VS_ADMINS: idList('Slack user ids (U…, W…) or user-group ids (S…)', slackUserOrGroupId, 'U024BE7LH,S0614TZR7').optional(),
  VS_OPERATORS: idList('Slack user ids (U…, W…) or user-group ids (S…)', slackUserOrGroupId, 'U024BE7LH,S0614TZR7').optional(),
  VS_VIEWERS: idList('Slack user ids (U…, W…) or user-group ids (S…)', slackUserOrGroupId, 'U024BE7LH,S0614TZR7').optional(),
  VS_MUTATION_CHANNELS: idList('Slack channel ids (C…, G…)', slackChannelId, 'C024BE91L').optional(),
  VS_GROUP_CACHE_MS: positiveInt('a cache time in milliseconds').default(60000),
  VS_WORKFLOW_READS: z.enum(['viewers', 'everyone'], { error: 'must be viewers or everyone' }).default('viewers'),
  VS_WORKFLOW_REQUESTS_PER_HOUR: positiveInt('a number of requests').default(6),
  VS_WORKFLOW_CALLS_PER_HOUR: positiveInt('a number of calls').default(4),
  VS_APPROVALS: actionList.optional(),
  VS_APPROVAL_TTL_MIN: positiveInt('a time in minutes').default(30),
  /** Unset: 5, or LOCAL_MODE.followIntervalS in local mode. */
  VS_FOLLOW_INTERVAL_S: positiveInt('a time in seconds')
    .refine((n) => n <= FOLLOW_BACKOFF_MAX_S, `must be at most ${FOLLOW_BACKOFF_MAX_S} seconds (polls back off to ${FOLLOW_BACKOFF_MAX_S} s from it)`)
    .optional(),
  VS_FOLLOW_MAX_MIN: positiveInt('a time in minutes').default(60),
  VS_MAX_DISK_GB: positiveInt('a size in GB')
    .refine((n) => n <= MAX_DISK_GB, `must be at most ${MAX_DISK_GB} (the largest disk the cloud API takes)`)
    .default(DEFAULT_MAX_DISK_GB),
  VS_AUDIT_CHANNEL: z.string().regex(slackChannelId, 'must be a Slack channel id (C…, G…)').optional(),
  VS_DB_PATH: z.string().default('./data/vs-chatops.sqlite'),
  DATABASE_URL: z
    .string()
    .refine(isPostgresUrl, 'must be a PostgreSQL URL: postgres://user:password@host:5432/database (or postgresql://…); unset keeps SQLite at VS_DB_PATH')
    .optional(),
  VS_DB_MAX_CONNECTIONS: positiveInt('a number of connections').default(10),
  VS_RESPONSE_VISIBILITY: z.enum(['in_channel', 'ephemeral'], { error: 'must be in_channel or ephemeral' }).default('in_channel'),
  VS_AUDIT_RETENTION_DAYS: positiveInt('a number of days').default(400),
  VS_LOCK_TTL_MS: positiveInt('a time in milliseconds')
    // Renewed every third of it while a change runs (src/changes/keep-lease.ts): shorter, and a hiccup of the store loses it.
    .refine(
      (n) => n >= 3000,
      'must be at least 3000 (3 s): a running change renews its lock every third of it, so a shorter one is lost to a brief store hiccup',
    )
    .default(300000),
  VS_SWEEP_INTERVAL_MS: positiveInt('a time in milliseconds').default(30000),
  VS_STORE_PING_MS: positiveInt('a time in milliseconds').default(5000),
  VS_OUTBOX_POLL_MS: positiveInt('a time in milliseconds').default(1000),
  VS_OUTBOX_BATCH: positiveInt('a number of posts').default(20),
  VS_ONCALL_PROVIDER: z.enum(['pagerduty'], { error: 'must be pagerduty (or unset: nobody gets a role from being on call)' }).optional(),
  VS_PAGERDUTY_TOKEN: z.string().optional(),
  VS_PAGERDUTY_API_URL: z
    .url({ protocol: /^https?$/, error: "must be the http(s) base URL of PagerDuty's REST API, e.g. https://api.pagerduty.com" })
    .default(PAGERDUTY_API_URL),
  VS_ONCALL_SCHEDULES: idList('PagerDuty schedule ids', pagerDutyId, 'PABC123,PDEF456').optional(),
  VS_ONCALL_ESCALATION_POLICIES: idList('PagerDuty escalation policy ids', pagerDutyId, 'PXYZ789').optional(),
  VS_ONCALL_MAX_LEVEL: positiveInt('an escalation level')
    .refine((n) => n <= 20, 'must be an escalation level from 1 to 20 (1: the first paged)')
    .default(1),
  VS_ONCALL_ROLE: GrantedRole.default('operator'),
  VS_ONCALL_CACHE_S: positiveInt('a time in seconds')
    .refine((n) => n <= 3600, 'must be at most 3600 seconds (an hour): a shift that ended must stop counting soon')
    .default(60),
  /** Unset: off, or on in local mode. */
  VS_BREAKGLASS: z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  VS_BREAKGLASS_MIN: positiveInt('a time in minutes')
    .refine((n) => n <= MAX_BREAKGLASS_MIN, `must be at most ${MAX_BREAKGLASS_MIN} minutes (a day)`)
    .default(60),
  // Agents (docs/product.md, Agents ask, people decide): the MCP endpoint and its tokens.
  /** Unset: off, or on in local mode. */
  VS_MCP: z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  /** Unset: /mcp is served on PORT (HTTP mode); Socket Mode, which has no HTTP port for Slack, needs it. */
  VS_MCP_PORT: positiveInt('a TCP port')
    .refine((n) => n <= 65535, 'must be a TCP port (1–65535)')
    .optional(),
  /** Unset: a request with an Origin header is refused (one without passes). */
  VS_MCP_ALLOWED_ORIGINS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim().replace(/\/+$/, ''))
        .filter(Boolean),
    )
    .refine((origins) => origins.every((o) => /^https?:\/\/[^/\s]+$/.test(o)), 'must be a comma-separated list of origins, e.g. https://agents.example.com')
    .optional(),
  VS_AGENT_CALLS_PER_MINUTE: positiveInt('a number of calls').default(60),
  VS_AGENT_TOKEN_MAX_HOURS: positiveInt('a time in hours')
    .refine((n) => n <= 24 * 90, 'must be at most 2160 hours (90 days)')
    .default(168),
  /** Where agents' requests are posted for a person to decide; needed when VS_MCP is on (local mode has its own). */
  VS_AGENT_CHANNEL: z.string().regex(slackChannelId, 'must be a Slack channel id (C…, G…)').optional(),
  VS_AGENT_DENY_MEMORY_MIN: positiveInt('a time in minutes')
    .refine((n) => n <= 24 * 60, 'must be at most 1440 minutes (a day)')
    .default(30),
  VS_PAGERDUTY_ROUTING_KEY: z
    .string()
    .refine((s) => /^[A-Za-z0-9]{32}$/.test(s), "must be a service's 32-character integration key (Events API v2)")
    .refine((s) => !s.startsWith('R'), "must be a service's integration key: a ruleset's routing key (starting with R) does not take change events")
    .optional(),
  VS_PAGERDUTY_EVENTS_URL: z
    .url({ protocol: /^https?$/, error: "must be the http(s) base URL of PagerDuty's Events API, e.g. https://events.pagerduty.com" })
    .default(PAGERDUTY_EVENTS_URL),
  VS_SHUTDOWN_DELAY_MS: z.string().regex(/^\d+$/, 'must be a time in milliseconds (a whole number, 0 for none)').transform(Number).default(0),
  LOG_LEVEL: LogLevel.default('info'),
  // Traces (docs/production.md, Traces): the standard OTEL_* variables the bot reads, each passed to the SDK explicitly.
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url({ protocol: /^https?$/, error: 'must be the http(s) base URL of an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318 (traces go to <it>/v1/traces)' })
    .refine((s) => {
      // Not a URL at all is the check above's to report.
      const url = urlOf(s);
      return url === null || (url.username === '' && url.password === '' && url.search === '' && url.hash === '');
    }, 'must be a base URL without user info, query or fragment (credentials go in OTEL_EXPORTER_OTLP_HEADERS)')
    .optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], {
      error: "must be http/protobuf or http/json (OTLP over HTTP; gRPC is not offered: use the receiver's HTTP port, usually 4318)",
    })
    .default('http/protobuf'),
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList('headers', 'authorization=Bearer%20abc,x-scope=ops').optional(),
  OTEL_EXPORTER_OTLP_TIMEOUT: positiveInt('a time in milliseconds').default(10000),
  OTEL_EXPORTER_OTLP_COMPRESSION: z.enum(['gzip', 'none'], { error: 'must be gzip or none' }).default('none'),
  OTEL_SERVICE_NAME: z.string().default(DEFAULT_SERVICE_NAME),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('resource attributes', 'deployment.environment.name=production,service.namespace=ops').optional(),
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS, { error: `must be one of ${TRACES_SAMPLERS.join(', ')}` }).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .regex(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/, 'must be a ratio from 0 to 1 (e.g. 0.1), the share of traces kept by the traceidratio samplers')
    .transform(Number)
    .default(1),
  OTEL_BSP_SCHEDULE_DELAY: positiveInt('a time in milliseconds').default(5000),
  OTEL_BSP_MAX_QUEUE_SIZE: positiveInt('a number of spans').default(2048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: positiveInt('a number of spans').default(512),
  OTEL_BSP_EXPORT_TIMEOUT: positiveInt('a time in milliseconds').default(30000),
  OTEL_SDK_DISABLED: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  VS_NAME_INDEX_TTL_S: positiveInt('a time in seconds').default(60),
  VS_TIMEZONE: z.string().refine(isTimeZone, 'must be an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)').default('UTC'),
  /** Unset: 30, or LOCAL_MODE.watchIntervalS in local mode. */
  VS_WATCH_INTERVAL_S: positiveInt('a time in seconds').optional(),
  /** Unset: 10, or LOCAL_MODE.watchLockMin in local mode. */
  VS_WATCH_LOCK_MIN: positiveInt('a time in minutes').optional(),
  VS_WATCH_BLIND_MIN: positiveInt('a time in minutes').default(5),
  VS_WATCH_MAX_PER_CHANNEL: positiveInt('a number of watches').default(50),
  /** The addresses the bot reaches the cloud API from: a firewall rule that would drop them on the API's port asks for a second confirmation. */
  VS_BOT_ADDRESSES: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine(
      (addresses) => addresses.length > 0 && addresses.every((a) => parseAddressForm(a).kind === 'interval'),
      'must be a comma-separated list of addresses, CIDR blocks or ranges, e.g. 203.0.113.7,198.51.100.0/28',
    )
    .optional(),
});

type Env = z.output<typeof EnvSchema>;
type SettingName = keyof typeof EnvSchema.shape;

/** Every variable the bot reads; README's configuration table and .env.example name each (test/config.test.ts). */
export const SETTING_NAMES: readonly string[] = Object.keys(EnvSchema.shape);

/**
 * Settings that grant or restrict: present but empty (an unset template
 * variable, `VS_VIEWERS=`) would otherwise read as unset, i.e. "everyone" or
 * "anywhere". Such a line stops start-up instead.
 */
export const SECURITY_SETTINGS = ['VS_ADMINS', 'VS_OPERATORS', 'VS_VIEWERS', 'VS_MUTATION_CHANNELS', 'VS_APPROVALS'] as const;

function emptySecurityProblems(env: Record<string, string | undefined>): string[] {
  return SECURITY_SETTINGS.filter((key) => env[key] !== undefined && env[key].replace(/[\s,]/g, '') === '').map(
    (key) => `${key} is present but empty: set a value or remove the line (an empty security setting is refused, not guessed)`,
  );
}

/** Loopback hosts, where plain http never leaves the machine. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A control panel's base URL as links are compared with it: scheme, host, port and path, without a trailing slash. */
function panelBase(value: string): string {
  const url = new URL(value);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The TCP port the cloud API is reached on: VS_API_URL's, or its scheme's (443 for https, 80 for http). */
function apiPort(value: string): number {
  const url = new URL(value);
  return url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : 443;
}

/** A setting's URL; null when unset or malformed (which the schema reports). */
function urlOf(value: string | undefined): URL | null {
  if (value === undefined) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** A URL that carries a credential must not send it in clear past this machine. */
function plainHttpProblem(key: string, value: string | undefined, credential: string): string | null {
  const url = urlOf(value);
  if (!url || url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `${key} uses plain http:// to ${url.hostname}, which would send ${credential} in clear: use https:// (plain http is accepted only on loopback)`;
}

/**
 * Values of .env.example that stand for something to fill in. Taken as they
 * are, they fail later and far away ("fetch failed", a 401, roles that match
 * nobody); refused here, the message names the variable and what to put.
 */
const PLACEHOLDER_HINTS: Readonly<Record<string, string>> = {
  SLACK_BOT_TOKEN: 'the Bot User OAuth Token (xoxb-…) from "OAuth & Permissions" of your Slack app',
  SLACK_SIGNING_SECRET: 'the Signing Secret from "Basic Information → App Credentials" of your Slack app',
  SLACK_APP_TOKEN: 'an app-level token (xapp-…) with connections:write from "Basic Information → App-Level Tokens"',
  VS_ACCOUNT_ID: 'the account id of your cloud API',
  VS_API_KEY: 'the API key generated for that account',
  VS_ADMINS: 'member ids (U…, "Copy member ID" in a Slack profile) or user-group ids (S…) of your workspace',
  VS_OPERATORS: 'member ids (U…, "Copy member ID" in a Slack profile) or user-group ids (S…) of your workspace',
  VS_VIEWERS: 'member ids (U…, "Copy member ID" in a Slack profile) or user-group ids (S…) of your workspace',
  VS_MUTATION_CHANNELS: "channel ids (C…, at the bottom of a channel's details) of your workspace",
  VS_AUDIT_CHANNEL: "a channel id (C…, at the bottom of a channel's details) of your workspace",
  VS_AGENT_CHANNEL: "a channel id (C…, at the bottom of a channel's details) of your workspace",
  VS_PAGERDUTY_TOKEN: 'a read-only REST API key of PagerDuty (Integrations → API Access Keys)',
  VS_PAGERDUTY_ROUTING_KEY: "the integration key of a PagerDuty service's Events API v2 integration",
  DATABASE_URL: 'the URL of your PostgreSQL database (postgres://user:password@host:5432/database)',
  OTEL_EXPORTER_OTLP_HEADERS: 'the headers your OTLP receiver asks for, key=value (e.g. authorization=Bearer%20<its token>)',
};
/** The example ids of .env.example: well-formed, but nobody's. */
const EXAMPLE_IDS: ReadonlySet<string> = new Set(['U012ADMIN', 'S012ONCALL', 'U012VIEWER', 'S012SRE', 'C012INCIDENT', 'C012AUDIT', 'PABC123', 'PXYZ789']);
/** `xoxb-...`, `<token>`, `xapp-your-app-token`, `changeme`: what a template puts where a value goes. */
const PLACEHOLDER_TEXT = /\.\.\.|…|<[^>]*>|\byour[-_]|^(change-?me|replace-?me|placeholder|todo|x{3,})$/i;

/** The variables still holding a placeholder, with their problem; never the value itself (it may be half a secret). */
function placeholderProblems(env: Record<string, string>): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, hint] of Object.entries(PLACEHOLDER_HINTS)) {
    const value = env[key];
    if (value === undefined) continue;
    const items = value.split(',').map((item) => item.trim());
    if (items.some((item) => PLACEHOLDER_TEXT.test(item) || EXAMPLE_IDS.has(item))) {
      found.set(key, `${key} still holds a placeholder from .env.example: replace it with ${hint}, or remove the line`);
    }
  }
  return found;
}

/** One setting as the schema reads it alone (its default when unset); undefined when invalid, which the schema reports. */
function settingValue<K extends SettingName>(key: K, env: Record<string, string>): Env[K] | undefined {
  const read = EnvSchema.shape[key].safeParse(env[key]);
  return read.success ? (read.data as Env[K]) : undefined;
}

/** Connections kept for changes when VS_API_CHANGE_CONNECTIONS is unset: 4, and at most half of the total. */
function defaultChangeConnections(maxConnections: number): number {
  return Math.max(1, Math.min(4, Math.floor(maxConnections / 2)));
}

/**
 * A URL with user info (`user:password@`) would carry it into every line
 * that quotes the URL (undici's own errors do), and nothing of ours reads it:
 * refused, with what to do instead.
 */
function userInfoProblem(key: 'SLACK_API_URL' | 'VS_API_URL', value: string | undefined): string | null {
  const url = urlOf(value);
  if (!url || (url.username === '' && url.password === '')) return null;
  const instead =
    key === 'SLACK_API_URL'
      ? "Slack's Web API client refuses such URLs, and the bot sends no proxy credentials (it does not read HTTPS_PROXY or HTTP_PROXY): " +
        "give the proxy's plain https:// URL and let the proxy admit this host without a password (e.g. by its address)"
      : 'the cloud API is authenticated with VS_ACCOUNT_ID and VS_API_KEY (HTTP Basic), and the bot sends no proxy credentials ' +
        '(it does not read HTTPS_PROXY or HTTP_PROXY): remove the user info from the URL';
  return `${key} carries a user name or password (user:password@…), which would be written to logs: ${instead}`;
}

/** Rules across variables; checked on the raw values so they are reported with every other problem. */
function crossFieldProblems(env: Record<string, string>): string[] {
  const problems: string[] = [];
  const total = settingValue('VS_API_MAX_CONNECTIONS', env);
  const forChanges = settingValue('VS_API_CHANGE_CONNECTIONS', env) ?? (total === undefined ? undefined : defaultChangeConnections(total));
  if (total !== undefined && forChanges !== undefined && forChanges >= total) {
    problems.push(`VS_API_CHANGE_CONNECTIONS must be less than VS_API_MAX_CONNECTIONS (${total}): reads need the rest`);
  }
  if (env.VS_MCP === 'on' && modeOf(env) === 'socket' && env.VS_MCP_PORT === undefined) {
    problems.push('VS_MCP is on in Socket Mode, which has no HTTP port for the MCP endpoint: set VS_MCP_PORT, the port agents call /mcp on');
  }
  if (env.VS_MCP === 'on' && modeOf(env) !== 'local' && env.VS_AGENT_CHANNEL === undefined) {
    problems.push("VS_MCP is on, but VS_AGENT_CHANNEL is not set: agents' requests are posted there for a person to decide (a channel id, C…)");
  }
  const realApi = env.VS_API_URL !== undefined && env.VS_API_URL !== SANDBOX;
  const urlProblems = [
    realApi ? plainHttpProblem('VS_API_URL', env.VS_API_URL, 'the API key') : null,
    plainHttpProblem('SLACK_API_URL', env.SLACK_API_URL, 'the bot token'),
    realApi ? userInfoProblem('VS_API_URL', env.VS_API_URL) : null,
    userInfoProblem('SLACK_API_URL', env.SLACK_API_URL),
  ];
  for (const p of urlProblems) if (p) problems.push(p);
  problems.push(...pagerDutyProblems(env));
  if (env.OTEL_EXPORTER_OTLP_HEADERS !== undefined) {
    const inClear = plainHttpProblem('OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_HEADERS');
    if (inClear) problems.push(inClear);
  }
  const batch = settingValue('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', env);
  const queue = settingValue('OTEL_BSP_MAX_QUEUE_SIZE', env);
  if (batch !== undefined && queue !== undefined && batch > queue) {
    problems.push(`OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be at most OTEL_BSP_MAX_QUEUE_SIZE (${queue}): a batch is taken from the queue`);
  }
  if (modeOf(env) === 'local') {
    if (realApi) {
      problems.push(
        'VS_API_URL names a real cloud API, but no Slack variable is set, which means local mode: a page on loopback whose make-believe admins ' +
          'must never reach real servers, so local mode runs on the sandbox only. Remove VS_API_URL to try the bot locally, ' +
          'or set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) to connect to Slack',
      );
    }
    if (env.DATABASE_URL !== undefined) {
      problems.push(
        'DATABASE_URL is set, but no Slack variable is, which means local mode: its make-believe people must never write to a real audit trail, ' +
          `so local mode connects to no database and keeps its own SQLite file (${LOCAL_MODE.dbPath}). Remove DATABASE_URL to try the bot locally, ` +
          'or set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) to connect to Slack',
      );
    }
  } else {
    // Connected to Slack, the sandbox is never a default: a deployment that forgot VS_API_URL would otherwise serve
    // make-believe servers to real people, report itself healthy and write make-believe changes into the real audit trail.
    if (env.VS_API_URL === undefined) {
      problems.push(
        'VS_API_URL is required in HTTP and Socket Mode: the base URL of your cloud API (https://cloud.example.com), ' +
          'or "sandbox" to run on the built-in simulator and its make-believe servers',
      );
    }
    // Some Slack variable is set: a half-configured Slack app is a mistake, not a wish for local mode.
    if (!env.SLACK_BOT_TOKEN)
      problems.push(
        'SLACK_BOT_TOKEN is required: the bot token (xoxb-…) from "OAuth & Permissions" of your Slack app ' +
          '(or unset every SLACK_ variable to try the bot locally, without Slack)',
      );
    if (!env.SLACK_APP_TOKEN && !env.SLACK_SIGNING_SECRET) {
      problems.push('SLACK_SIGNING_SECRET is required in HTTP mode (Basic Information → Signing Secret); or set SLACK_APP_TOKEN to use Socket Mode');
    }
  }
  if (realApi) {
    if (!env.VS_ACCOUNT_ID) problems.push('VS_ACCOUNT_ID is required when VS_API_URL points at a real cloud API (the account id used for Basic auth)');
    if (!env.VS_API_KEY) problems.push('VS_API_KEY is required when VS_API_URL points at a real cloud API (the generated API key)');
  }
  return problems;
}

/** The PagerDuty settings that reach a real PagerDuty account: local mode has a stand-in of its own instead. */
const PAGERDUTY_ACCOUNT_SETTINGS = [
  'VS_ONCALL_PROVIDER',
  'VS_PAGERDUTY_TOKEN',
  'VS_PAGERDUTY_API_URL',
  'VS_PAGERDUTY_ROUTING_KEY',
  'VS_PAGERDUTY_EVENTS_URL',
] as const;

/** On-call roles and change events (docs/product.md, On call): what goes together, and keys never sent in clear. */
function pagerDutyProblems(env: Record<string, string>): string[] {
  const problems: string[] = [];
  if (modeOf(env) === 'local') {
    const set = PAGERDUTY_ACCOUNT_SETTINGS.filter((key) => env[key] !== undefined);
    if (set.length > 0)
      problems.push(
        `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set, but no Slack variable is, which means local mode: its make-believe people must never ` +
          'reach a real PagerDuty account, so local mode runs its own PagerDuty stand-in. Remove them to try the bot locally, ' +
          'or set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) to connect to Slack',
      );
    return problems;
  }
  const onCall = env.VS_ONCALL_PROVIDER !== undefined;
  if (onCall) {
    if (!env.VS_PAGERDUTY_TOKEN)
      problems.push('VS_PAGERDUTY_TOKEN is required with VS_ONCALL_PROVIDER=pagerduty: a read-only REST API key (PagerDuty: Integrations → API Access Keys)');
    if (!env.VS_ONCALL_SCHEDULES && !env.VS_ONCALL_ESCALATION_POLICIES)
      problems.push(
        'VS_ONCALL_SCHEDULES or VS_ONCALL_ESCALATION_POLICIES is required with VS_ONCALL_PROVIDER=pagerduty: whoever is on call in them gets VS_ONCALL_ROLE',
      );
    const clear = plainHttpProblem('VS_PAGERDUTY_API_URL', env.VS_PAGERDUTY_API_URL, 'the PagerDuty API key');
    if (clear) problems.push(clear);
  } else {
    for (const key of ['VS_PAGERDUTY_TOKEN', 'VS_ONCALL_SCHEDULES', 'VS_ONCALL_ESCALATION_POLICIES'] as const)
      if (env[key] !== undefined) problems.push(`VS_ONCALL_PROVIDER=pagerduty is required with ${key}: without it nobody gets a role from being on call`);
  }
  if (env.VS_PAGERDUTY_ROUTING_KEY !== undefined) {
    const clear = plainHttpProblem('VS_PAGERDUTY_EVENTS_URL', env.VS_PAGERDUTY_EVENTS_URL, 'the routing key');
    if (clear) problems.push(clear);
  }
  return problems;
}

/** http: Slack over HTTP; socket: Socket Mode; local: no Slack variable at all, an embedded stand-in for Slack and a page (packages/slack-standin). */
export type Mode = 'http' | 'socket' | 'local';

function modeOf(env: Pick<Env, 'SLACK_APP_TOKEN' | 'SLACK_BOT_TOKEN' | 'SLACK_SIGNING_SECRET'>): Mode {
  if (env.SLACK_APP_TOKEN) return 'socket';
  if (env.SLACK_BOT_TOKEN || env.SLACK_SIGNING_SECRET) return 'http';
  return 'local';
}

/**
 * Local mode's own settings: the roles and audit channel of the Slack stand-in's make-believe workspace (its ids are
 * written once, there) and a store no deployment uses. VS_DB_PATH is not read in local mode; DATABASE_URL stops it.
 */
export const LOCAL_MODE = {
  dbPath: './data/local-mode/vs-chatops.sqlite',
  /** The roles when none of VS_ADMINS, VS_OPERATORS, VS_VIEWERS is set: the workspace's (two admins, Otto and the on-call group operators). */
  admins: MADE_UP_ROLES.admins as readonly string[],
  operators: MADE_UP_ROLES.operators as readonly string[],
  /** VS_APPROVALS with the made-up roles, unless it is set: a restore waits for the other admin, so the page shows the two-person rule. */
  approvals: ['backup_restore'] as readonly string[],
  /** VS_AUDIT_CHANNEL unless one is configured. */
  auditChannel: AUDIT_CHANNEL.id,
  /** VS_AGENT_CHANNEL unless one is configured: the incident's channel, where the people are. */
  agentChannel: INCIDENT_CHANNEL.id,
  /** VS_FOLLOW_INTERVAL_S unless set: the sandbox's changes take seconds, and the page shows them run. */
  followIntervalS: 2,
  /** VS_WATCH_INTERVAL_S unless set: a watch's news (the page's control panel powering a server off) shows within seconds. */
  watchIntervalS: 5,
  /** VS_WATCH_LOCK_MIN unless set: the page's control panel locks a server for 10 minutes, told as a lock after 1. */
  watchLockMin: 1,
  /**
   * On call through the PagerDuty stand-in (the sandbox package's), whose schedule has one of the make-believe people on
   * call now; every change that ends is sent to it as a change event, which the page lists. Break glass is on, unless
   * VS_BREAKGLASS says otherwise.
   */
  onCallSchedule: PAGERDUTY_STANDIN.scheduleId,
  breakGlass: true,
} as const;

/** The settings, shaped: each group is what one part takes. Local mode's settings are made here too, and only here. */
function shape(e: Env) {
  const mode = modeOf(e);
  const local = mode === 'local';
  const sandbox = e.VS_API_URL === SANDBOX;
  const madeUpRoles = local && e.VS_ADMINS === undefined && e.VS_OPERATORS === undefined && e.VS_VIEWERS === undefined;
  return deepFreeze({
    mode,
    slack: {
      /** Local mode: made up per run, for the embedded stand-in (never printed). */
      botToken: local ? `xoxb-local-${randomBytes(18).toString('hex')}` : (e.SLACK_BOT_TOKEN ?? ''),
      signingSecret: local ? randomBytes(24).toString('hex') : e.SLACK_SIGNING_SECRET,
      /** Set: Socket Mode. Unset: HTTP mode on `port`. */
      appToken: e.SLACK_APP_TOKEN,
      /** Local mode: the stand-in's Web API, on PORT. */
      apiUrl: local ? `http://127.0.0.1:${e.PORT}/api/` : e.SLACK_API_URL,
      port: e.PORT,
      /**
       * The workspaces whose requests are served: SLACK_TEAM_ID (null: the bot token's own, learnt from auth.test) and
       * VS_ALLOWED_TEAMS. A request from any other, a Slack Connect user's included, is refused.
       */
      teamId: e.SLACK_TEAM_ID ?? null,
      allowedTeams: e.VS_ALLOWED_TEAMS ?? [],
      /** Proxies whose X-Forwarded-For names the client the request guard counts bodies for (VS_TRUSTED_PROXIES). */
      trustedProxies: e.VS_TRUSTED_PROXIES ?? [],
    },
    /** Set: /metrics has a server of its own on this port, and is not served on PORT. */
    metricsPort: e.VS_METRICS_PORT ?? null,
    cloud: {
      /** `sandbox` runs the simulator in-process. */
      url: e.VS_API_URL,
      accountId: e.VS_ACCOUNT_ID ?? (sandbox ? SANDBOX_ACCOUNT_ID : ''),
      apiKey: e.VS_API_KEY ?? (sandbox ? SANDBOX_API_KEY : ''),
      format: e.VS_API_FORMAT,
      timeoutMs: e.VS_API_TIMEOUT_MS,
      /** Upper bound on connections to the API, reads and changes together. */
      maxConnections: e.VS_API_MAX_CONNECTIONS,
      /** Of maxConnections, kept for changes: reads never take them. */
      changeConnections: e.VS_API_CHANGE_CONNECTIONS ?? defaultChangeConnections(e.VS_API_MAX_CONNECTIONS),
      /** How long a request may wait for a connection of its budget; it is not sent when none comes free. */
      connectionWaitMs: e.VS_API_CONNECTION_WAIT_MS,
    },
    /**
     * The control panel whose server links are unfurled (VS_PANEL_URL); null: the sandbox's own base URL, which the
     * composition root knows once the sandbox listens.
     */
    panelUrl: e.VS_PANEL_URL ?? (sandbox ? null : panelBase(new URL(e.VS_API_URL).origin)),
    roles: {
      admins: madeUpRoles ? [...LOCAL_MODE.admins] : (e.VS_ADMINS ?? []),
      operators: madeUpRoles ? [...LOCAL_MODE.operators] : (e.VS_OPERATORS ?? []),
      /** null: everyone is a viewer. */
      viewers: e.VS_VIEWERS ?? null,
      /** null: changes allowed in any channel. */
      mutationChannels: e.VS_MUTATION_CHANNELS ?? null,
      groupCacheMs: e.VS_GROUP_CACHE_MS,
      /**
       * What a workflow step may read: nothing proves who started a workflow, so `viewers` lets steps read only
       * when everyone is a viewer (VS_VIEWERS unset); `everyone` lets them read whatever VS_VIEWERS says.
       */
      workflowReads: e.VS_WORKFLOW_READS,
    },
    /** Local mode with no role configured: the roles are LOCAL_MODE's, given to the make-believe people. */
    madeUpRoles,
    /**
     * Workflow change steps (docs/product.md, Workflow steps): the requests one workflow may post an hour (Slack does not
     * name the workflow that runs a step: a workflow is told apart by its step and the channel it posts in), and how
     * often an hour one person or user group is called (mentioned) by workflow requests, all instances together.
     */
    workflows: {
      requestsPerHour: e.VS_WORKFLOW_REQUESTS_PER_HOUR,
      callsPerHour: e.VS_WORKFLOW_CALLS_PER_HOUR,
    },
    /**
     * Changes that wait for a second person's approval (VS_APPROVALS, by name: start-up checks them against the table of
     * changes), and how long a request for one stays open (VS_APPROVAL_TTL_MIN).
     */
    approvals: {
      actions: e.VS_APPROVALS ?? (madeUpRoles ? [...LOCAL_MODE.approvals] : []),
      ttlMs: e.VS_APPROVAL_TTL_MIN * 60_000,
    },
    /** Following an accepted change to its end (src/follow): the first spacing of its polls (backing off to FOLLOW_BACKOFF_MAX_S), and for how long. */
    follow: {
      intervalMs: (e.VS_FOLLOW_INTERVAL_S ?? (local ? LOCAL_MODE.followIntervalS : 5)) * 1000,
      maxMs: e.VS_FOLLOW_MAX_MIN * 60_000,
    },
    /**
     * Roles from being on call (docs/product.md, On call): whoever PagerDuty says is on call now in these schedules, or
     * in these escalation policies up to `maxLevel`, holds at least `role`; looked up at most once per person per
     * `cacheMs`. Null: off.
     */
    onCall:
      e.VS_ONCALL_PROVIDER !== undefined || local
        ? {
            provider: 'pagerduty' as const,
            scheduleIds: e.VS_ONCALL_SCHEDULES ?? (local && e.VS_ONCALL_ESCALATION_POLICIES === undefined ? [LOCAL_MODE.onCallSchedule] : []),
            escalationPolicyIds: e.VS_ONCALL_ESCALATION_POLICIES ?? [],
            maxLevel: e.VS_ONCALL_MAX_LEVEL,
            role: e.VS_ONCALL_ROLE,
            cacheMs: e.VS_ONCALL_CACHE_S * 1000,
          }
        : null,
    /**
     * PagerDuty: its REST API (read-only key, for on call) and its Events API (a service's integration key, for change
     * events; null: none are sent). Local mode: the stand-in (`standIn`), whose address the composition root knows once
     * it listens; its keys are made up per run.
     */
    pagerDuty: {
      standIn: local,
      token: local ? `local-${randomBytes(12).toString('hex')}` : (e.VS_PAGERDUTY_TOKEN ?? ''),
      apiUrl: e.VS_PAGERDUTY_API_URL.replace(/\/+$/, ''),
      routingKey: local ? randomBytes(16).toString('hex') : (e.VS_PAGERDUTY_ROUTING_KEY ?? null),
      eventsUrl: e.VS_PAGERDUTY_EVENTS_URL.replace(/\/+$/, ''),
    },
    /** Break glass (docs/product.md, On call): on or off, and how long a window lasts. */
    breakGlass: { on: e.VS_BREAKGLASS === undefined ? local && LOCAL_MODE.breakGlass : e.VS_BREAKGLASS === 'on', windowMs: e.VS_BREAKGLASS_MIN * 60_000 },
    /**
     * Agents (docs/product.md, Agents ask, people decide): the MCP endpoint on or off, the origins it accepts, how long a
     * token may live, the calls a minute of one token.
     */
    agents: {
      mcp: e.VS_MCP === undefined ? local : e.VS_MCP === 'on',
      /** VS_MCP_PORT: /mcp on a server of its own (and no longer on PORT); null: on PORT. */
      port: e.VS_MCP_PORT ?? null,
      allowedOrigins: e.VS_MCP_ALLOWED_ORIGINS ?? [],
      tokenMaxHours: e.VS_AGENT_TOKEN_MAX_HOURS,
      callsPerMinute: e.VS_AGENT_CALLS_PER_MINUTE,
      /** Where their requests are posted (VS_AGENT_CHANNEL; local mode's incident channel); null only while the endpoint is off. */
      channel: e.VS_AGENT_CHANNEL ?? (local ? LOCAL_MODE.agentChannel : null),
      denyMemoryMs: e.VS_AGENT_DENY_MEMORY_MIN * 60_000,
    },
    /** What the change forms accept: the largest disk the add-disk form takes (VS_MAX_DISK_GB). */
    forms: {
      maxDiskGb: e.VS_MAX_DISK_GB,
      // What a firewall rule must not cut (VS_BOT_ADDRESSES): the bot's addresses toward the cloud, on the API's port.
      ...(e.VS_BOT_ADDRESSES && !sandbox ? { botAccess: { addresses: e.VS_BOT_ADDRESSES, port: apiPort(e.VS_API_URL) } } : {}),
    },
    auditChannel: e.VS_AUDIT_CHANNEL ?? (local ? LOCAL_MODE.auditChannel : undefined),
    /** Local mode: its own file, whatever VS_DB_PATH says. */
    dbPath: local ? LOCAL_MODE.dbPath : e.VS_DB_PATH,
    /** Set: the store is on PostgreSQL (several instances); unset: SQLite at dbPath. Never set in local mode. */
    databaseUrl: e.DATABASE_URL,
    /** Upper bound of the PostgreSQL connection pool of one instance. */
    dbMaxConnections: e.VS_DB_MAX_CONNECTIONS,
    responseVisibility: e.VS_RESPONSE_VISIBILITY,
    /** Read commands and page clicks a user may make per minute; more are refused with a message. */
    readsPerUserPerMinute: e.VS_READS_PER_USER_PER_MINUTE,
    /** Change forms a user may open or submit per minute (counted across instances); more are refused with a message. */
    changesPerUserPerMinute: e.VS_CHANGES_PER_USER_PER_MINUTE,
    logLevel: e.LOG_LEVEL,
    /**
     * Traces over OTLP/HTTP (docs/production.md, Traces): null, and nothing of OpenTelemetry loaded, unless
     * OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not true). Everything the SDK takes is here, passed
     * to it explicitly (src/telemetry.ts).
     */
    telemetry:
      e.OTEL_EXPORTER_OTLP_ENDPOINT === undefined || e.OTEL_SDK_DISABLED === 'true'
        ? null
        : {
            /** Where spans are POSTed: the endpoint's signal path, as the specification builds it. */
            tracesUrl: `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
            protocol: e.OTEL_EXPORTER_OTLP_PROTOCOL,
            /** Sent with every export; their values are secrets (masked in logs, never in a span). */
            headers: e.OTEL_EXPORTER_OTLP_HEADERS ?? {},
            timeoutMs: e.OTEL_EXPORTER_OTLP_TIMEOUT,
            compression: e.OTEL_EXPORTER_OTLP_COMPRESSION,
            /** The resource of every span: OTEL_RESOURCE_ATTRIBUTES, with service.name from OTEL_SERVICE_NAME over it. */
            resource: { ...e.OTEL_RESOURCE_ATTRIBUTES, 'service.name': e.OTEL_SERVICE_NAME },
            sampler: { name: e.OTEL_TRACES_SAMPLER, ratio: e.OTEL_TRACES_SAMPLER_ARG },
            /** The batch span processor: spans wait at most `scheduledDelayMs`; past `maxQueueSize` waiting, new ones are dropped. */
            batch: {
              scheduledDelayMs: e.OTEL_BSP_SCHEDULE_DELAY,
              maxQueueSize: e.OTEL_BSP_MAX_QUEUE_SIZE,
              maxExportBatchSize: e.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
              exportTimeoutMs: e.OTEL_BSP_EXPORT_TIMEOUT,
            },
          },
    /** Operations: leases, sweeps, the audit outbox, shutdown (src/ops). */
    ops: {
      /** Audit records older than this many days are deleted. */
      auditRetentionDays: e.VS_AUDIT_RETENTION_DAYS,
      /**
       * How long a target lock lives if its holder dies (a live one renews it while the call runs); a `started` change
       * is then settled as unknown (interrupted).
       */
      lockTtlMs: e.VS_LOCK_TTL_MS,
      /** How often recovery and retention run (on one instance at a time). */
      sweepIntervalMs: e.VS_SWEEP_INTERVAL_MS,
      /** How often each instance checks that the store answers. */
      storePingMs: e.VS_STORE_PING_MS,
      /** How often the audit outbox is looked at when nothing wakes it. */
      outboxPollMs: e.VS_OUTBOX_POLL_MS,
      /** Audit posts claimed per round. */
      outboxBatch: e.VS_OUTBOX_BATCH,
      /** On SIGTERM, how long /readyz answers 503 before the listener closes (let the load balancer notice). */
      shutdownDelayMs: e.VS_SHUTDOWN_DELAY_MS,
    },
    /** The server name index (docs/product.md, Servers by name): how long the account's server list is kept. */
    names: { ttlMs: e.VS_NAME_INDEX_TTL_S * 1000 },
    /** Quiet hours and "until tomorrow" are read in this zone (VS_TIMEZONE). */
    timeZone: e.VS_TIMEZONE,
    /** Watches (docs/product.md, Watches: the bot speaks first). */
    watch: {
      intervalMs: (e.VS_WATCH_INTERVAL_S ?? (local ? LOCAL_MODE.watchIntervalS : 30)) * 1000,
      lockMs: (e.VS_WATCH_LOCK_MIN ?? (local ? LOCAL_MODE.watchLockMin : 10)) * 60_000,
      blindMs: e.VS_WATCH_BLIND_MIN * 60_000,
      maxPerChannel: e.VS_WATCH_MAX_PER_CHANNEL,
    },
  });
}

/** The environment in, the shaped and frozen Config out. */
const Settings = EnvSchema.transform(shape);

/** What the bot runs with; read-only all the way down. */
export type Config = z.output<typeof Settings>;

/** Reads and validates the settings. Empty strings count as unset, except for SECURITY_SETTINGS. Throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') relevant[key] = value.trim();
  }
  const parsed = Settings.safeParse(relevant);
  const placeholders = placeholderProblems(relevant);
  const problems = [...emptySecurityProblems(env), ...placeholders.values(), ...crossFieldProblems(relevant)];
  if (!parsed.success) {
    // zod echoes no input values in these messages; ours never include them either. A placeholder's own message says it all.
    const issues = parsed.error.issues.filter((issue) => !placeholders.has(String(issue.path[0])));
    problems.push(...issues.map((issue) => `${String(issue.path[0] ?? 'environment')} ${issue.message}`));
  }
  if (!parsed.success || problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return parsed.data;
}

/** Every secret value in the config, for log redaction. */
export function secretValues(config: Config): string[] {
  return [
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.cloud.apiKey,
    config.pagerDuty.token,
    config.pagerDuty.routingKey,
    ...databasePassword(config.databaseUrl),
    ...headerSecrets(config.telemetry?.headers ?? {}),
  ].filter((v): v is string => typeof v === 'string' && v.length >= 4 && v !== SANDBOX_API_KEY);
}

/** OTEL_EXPORTER_OTLP_HEADERS' values, whole and without their scheme word (`Bearer abc` and `abc`). */
function headerSecrets(headers: Readonly<Record<string, string>>): string[] {
  return Object.values(headers).flatMap((value) => [value, value.slice(value.lastIndexOf(' ') + 1)]);
}

function isPostgresUrl(value: string): boolean {
  const protocol = urlOf(value)?.protocol;
  return protocol === 'postgres:' || protocol === 'postgresql:';
}

/** DATABASE_URL's password, as written and decoded, so that neither form reaches a log. */
function databasePassword(databaseUrl: string | undefined): string[] {
  const password = urlOf(databaseUrl)?.password;
  if (!password) return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A stray % (not an escape): the password as written is all there is.
  }
  return [...new Set([password, decoded])];
}

type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

function deepFreeze<T>(o: T): DeepReadonly<T> {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o as DeepReadonly<T>;
}
