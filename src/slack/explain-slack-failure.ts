// What to tell an operator when a call to Slack's Web API fails while the bot
// starts (auth.test with the bot token, apps.connections.open with the app
// token): which URL, what went wrong, and what to check. The Web API client
// only says "A request error occurred: fetch failed", which names neither.

export type SlackTokenSetting = 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN';

const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** Network failures, by the code Node and undici give them. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ENETUNREACH: 'network unreachable',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out while connecting',
  UND_ERR_SOCKET: 'connection closed',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed TLS certificate in the chain (a proxy that inspects TLS?)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate could not be verified',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};

/** Platform errors that mean the token itself is wrong. */
const TOKEN_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
  'missing_scope',
]);

const WHERE_TO_FIND: Readonly<Record<SlackTokenSetting, string>> = {
  SLACK_BOT_TOKEN: 'the Bot User OAuth Token (xoxb-…) under "OAuth & Permissions" of your Slack app',
  SLACK_APP_TOKEN: 'an app-level token (xapp-…) with connections:write under "Basic Information → App-Level Tokens"',
};

/**
 * One sentence for the log or for stderr. Never holds a token: the URL is the
 * configured base URL (credentials in it are dropped) plus the method name.
 */
export function explainSlackFailure(error: unknown, call: { apiUrl: string | undefined; method: string; token: SlackTokenSetting }): string {
  const url = `${shownBaseUrl(call.apiUrl)}${call.method}`;
  const e = (error ?? {}) as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown; original?: unknown };
  if (e.code === 'slack_webapi_platform_error') {
    const slackError = typeof e.data?.error === 'string' ? e.data.error : 'an error';
    if (TOKEN_ERRORS.has(slackError)) {
      return (
        `Slack refused ${call.token} (${slackError}) at ${url}: set it to ${WHERE_TO_FIND[call.token]}; ` +
        "a token of another app or workspace, or a reinstalled app's old token, is refused too"
      );
    }
    return `Slack answered ${slackError} to ${url}: check ${call.token} (${WHERE_TO_FIND[call.token]}) and the app's settings`;
  }
  if (e.code === 'slack_webapi_http_error') {
    const status = typeof e.statusCode === 'number' ? e.statusCode : '?';
    return (
      `Slack's Web API at ${url} answered HTTP ${status}: check SLACK_API_URL (unset means ${DEFAULT_SLACK_API_URL}) and any proxy in between; ` +
      "if it persists, Slack's status page"
    );
  }
  const reason = networkReason(e.code === 'slack_webapi_request_error' ? e.original : error);
  return (
    `Slack could not be reached at ${url} (${reason}): check that this machine can reach it (network, DNS, firewall), ` +
    `that SLACK_API_URL names your proxy if Slack is reached through one, and that ${call.token} is set to ${WHERE_TO_FIND[call.token]}`
  );
}

function shownBaseUrl(apiUrl: string | undefined): string {
  if (!apiUrl) return DEFAULT_SLACK_API_URL;
  try {
    const u = new URL(apiUrl);
    u.username = '';
    u.password = '';
    u.search = '';
    const text = u.toString();
    return text.endsWith('/') ? text : `${text}/`;
  } catch {
    return 'SLACK_API_URL';
  }
}

/** The innermost code or message of a network failure ("fetch failed" says nothing on its own). */
function networkReason(error: unknown): string {
  let current: unknown = error;
  let message: string | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const c = current as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof c.code === 'string' && NETWORK_REASONS[c.code]) return `${NETWORK_REASONS[c.code]}, ${c.code}`;
    if (typeof c.message === 'string' && c.message && c.message !== 'fetch failed') message = c.message;
    // An AggregateError (IPv4 and IPv6 both refused) keeps its reasons in `errors`.
    current = c.cause ?? (Array.isArray(c.errors) ? c.errors[0] : undefined);
  }
  return message ?? 'no answer';
}
