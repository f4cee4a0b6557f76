import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, LOCAL_MODE, secretValues, SETTING_NAMES } from '../src/config';
import { ConfigError } from '../src/errors';

const minimalHttp = { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_SIGNING_SECRET: 'sig-secret-value', VS_API_URL: 'sandbox' };

function problemsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  test('fills every default of docs/product.md (Configuration) for a minimal HTTP-mode setup', () => {
    const c = loadConfig(minimalHttp);
    expect(c.slack.port).toBe(3000);
    expect(c.slack.appToken).toBeUndefined();
    expect(c.cloud.url).toBe('sandbox');
    expect(c.cloud.format).toBe('json');
    expect(c.cloud.timeoutMs).toBe(10000);
    expect(c.cloud.maxConnections).toBe(16);
    expect(c.cloud.changeConnections).toBe(4);
    expect(c.cloud.connectionWaitMs).toBe(5000);
    expect(c.readsPerUserPerMinute).toBe(30);
    expect(c.changesPerUserPerMinute).toBe(10);
    expect(c.roles).toEqual({ admins: [], operators: [], viewers: null, mutationChannels: null, groupCacheMs: 60000, workflowReads: 'viewers' });
    expect(c.dbPath).toBe('./data/vs-chatops.sqlite');
    expect(c.responseVisibility).toBe('in_channel');
    expect(c.logLevel).toBe('info');
  });

  test('operations settings: documented defaults, overridable, whole milliseconds; a bad one is named', () => {
    expect(loadConfig(minimalHttp).ops).toEqual({
      auditRetentionDays: 400,
      lockTtlMs: 300000,
      sweepIntervalMs: 30000,
      storePingMs: 5000,
      outboxPollMs: 1000,
      outboxBatch: 20,
      shutdownDelayMs: 0,
    });
    const c = loadConfig({ ...minimalHttp, VS_LOCK_TTL_MS: '3000', VS_SWEEP_INTERVAL_MS: '300', VS_SHUTDOWN_DELAY_MS: '5000', VS_OUTBOX_BATCH: '5' });
    expect(c.ops).toMatchObject({ lockTtlMs: 3000, sweepIntervalMs: 300, shutdownDelayMs: 5000, outboxBatch: 5 });
    const problems = problemsOf({ ...minimalHttp, VS_LOCK_TTL_MS: '0', VS_STORE_PING_MS: '1.5s', VS_SHUTDOWN_DELAY_MS: '-1' });
    expect(problems.some((p) => p.startsWith('VS_LOCK_TTL_MS'))).toBe(true);
    expect(problemsOf({ ...minimalHttp, VS_LOCK_TTL_MS: '2999' })).toEqual([
      'VS_LOCK_TTL_MS must be at least 3000 (3 s): a running change renews its lock every third of it, so a shorter one is lost to a brief store hiccup',
    ]);
    expect(problems.some((p) => p.startsWith('VS_STORE_PING_MS'))).toBe(true);
    expect(problems.some((p) => p.startsWith('VS_SHUTDOWN_DELAY_MS'))).toBe(true);
  });

  test('parses role lists of user and group ids, trimming spaces and empty items', () => {
    const c = loadConfig({ ...minimalHttp, VS_ADMINS: ' U0ADMIN , S0GROUP,', VS_VIEWERS: 'W0VIEW', VS_MUTATION_CHANNELS: 'C0INC,G0PRIV' });
    expect(c.roles.admins).toEqual(['U0ADMIN', 'S0GROUP']);
    expect(c.roles.viewers).toEqual(['W0VIEW']);
    expect(c.roles.mutationChannels).toEqual(['C0INC', 'G0PRIV']);
  });

  test('channel settings take channels (C…, G…), not DMs, so every channel named can be linked', () => {
    expect(problemsOf({ ...minimalHttp, VS_MUTATION_CHANNELS: 'C0INC,D0DM' }).join('\n')).toMatch(/VS_MUTATION_CHANNELS/);
    expect(problemsOf({ ...minimalHttp, VS_AUDIT_CHANNEL: 'D0DM' }).join('\n')).toMatch(/VS_AUDIT_CHANNEL/);
  });

  test('the workspaces served, the proxies believed, the metrics port: unset by default, read when set, named when wrong', () => {
    const unset = loadConfig(minimalHttp);
    expect([unset.slack.teamId, unset.slack.allowedTeams, unset.slack.trustedProxies, unset.metricsPort]).toEqual([null, [], [], null]);
    const set = loadConfig({
      ...minimalHttp,
      SLACK_TEAM_ID: 'T0123ABCD',
      VS_ALLOWED_TEAMS: 'T0456EFGH, T0789IJKL',
      VS_TRUSTED_PROXIES: '10.0.0.5, 10.1.0.0/16, fd00::/8',
      VS_METRICS_PORT: '9464',
    });
    expect([set.slack.teamId, set.slack.allowedTeams, set.slack.trustedProxies, set.metricsPort]).toEqual([
      'T0123ABCD',
      ['T0456EFGH', 'T0789IJKL'],
      ['10.0.0.5', '10.1.0.0/16', 'fd00::/8'],
      9464,
    ]);
    const problems = problemsOf({
      ...minimalHttp,
      SLACK_TEAM_ID: 'E0ORG',
      VS_ALLOWED_TEAMS: 'T0456EFGH,E0ORG',
      VS_TRUSTED_PROXIES: '10.0.0.5,10.0.0.1-10.0.0.9,example.com,10.0.0.0/33',
      VS_METRICS_PORT: '70000',
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^SLACK_TEAM_ID must be a Slack workspace id \(T…/),
        expect.stringMatching(/^VS_ALLOWED_TEAMS must be a comma-separated list of Slack workspace ids \(T…\)/),
        expect.stringMatching(/^VS_TRUSTED_PROXIES must be a comma-separated list of addresses or CIDR blocks/),
        expect.stringMatching(/^VS_METRICS_PORT must be a TCP port/),
      ]),
    );
  });

  test('returns a frozen object', () => {
    const c = loadConfig(minimalHttp);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.roles.admins)).toBe(true);
  });

  test('Socket Mode needs no signing secret', () => {
    const c = loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-A', VS_API_URL: 'sandbox' });
    expect(c.slack.appToken).toBe('xapp-1-A');
  });

  test('empty strings count as unset', () => {
    const c = loadConfig({ ...minimalHttp, VS_AUDIT_CHANNEL: '', PORT: '  ' });
    expect(c.auditChannel).toBeUndefined();
    expect(c.slack.port).toBe(3000);
    // An empty VS_API_URL is unset, which with Slack is a problem (below), and in local mode the sandbox.
    expect(problemsOf({ ...minimalHttp, VS_API_URL: '' })).toEqual([expect.stringMatching(/^VS_API_URL is required in HTTP and Socket Mode/)]);
    expect(loadConfig({ VS_API_URL: ' ' }).cloud.url).toBe('sandbox');
  });

  test('reports every problem at once, each naming the variable and what to do', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      VS_API_URL: 'https://api.example.com',
      VS_API_FORMAT: 'yaml',
      VS_ADMINS: 'alice',
      VS_API_TIMEOUT_MS: '0',
      LOG_LEVEL: 'loud',
    });
    const joined = problems.join('\n');
    for (const key of [
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'PORT',
      'VS_ACCOUNT_ID',
      'VS_API_KEY',
      'VS_API_FORMAT',
      'VS_ADMINS',
      'VS_API_TIMEOUT_MS',
      'LOG_LEVEL',
    ]) {
      expect(joined).toContain(key);
    }
    expect(joined).toMatch(/SLACK_SIGNING_SECRET .*SLACK_APP_TOKEN/);
  });

  test('watches: the account read every 30 s (local mode: 5 s, so the page’s control panel shows a watch at work), unless VS_WATCH_INTERVAL_S says', () => {
    expect(loadConfig(minimalHttp).watch.intervalMs).toBe(30_000);
    expect(loadConfig({}).watch.intervalMs).toBe(5000);
    expect(loadConfig({ VS_WATCH_INTERVAL_S: '60' }).watch.intervalMs).toBe(60_000);
    expect(loadConfig({ ...minimalHttp, VS_WATCH_INTERVAL_S: '10' }).watch.intervalMs).toBe(10_000);
    expect(problemsOf({ ...minimalHttp, VS_WATCH_INTERVAL_S: '0' })).toEqual(['VS_WATCH_INTERVAL_S must be a time in seconds greater than 0']);
    // A lock is told once it lasts 10 minutes (local mode: 1, so the page's 10-minute lock is told before it ends).
    expect(loadConfig(minimalHttp).watch.lockMs).toBe(600_000);
    expect(loadConfig({}).watch.lockMs).toBe(60_000);
    expect(loadConfig({ VS_WATCH_LOCK_MIN: '3' }).watch.lockMs).toBe(180_000);
  });

  test('following a change: polled every 5 s at first (local mode: 2 s), for 60 minutes; at most 30 s, whole numbers, named when wrong', () => {
    expect(loadConfig(minimalHttp).follow).toEqual({ intervalMs: 5000, maxMs: 3_600_000 });
    expect(loadConfig({}).follow.intervalMs).toBe(2000);
    expect(loadConfig({ VS_FOLLOW_INTERVAL_S: '10' }).follow.intervalMs).toBe(10_000);
    expect(loadConfig({ ...minimalHttp, VS_FOLLOW_INTERVAL_S: '30', VS_FOLLOW_MAX_MIN: '5' }).follow).toEqual({ intervalMs: 30_000, maxMs: 300_000 });
    expect(problemsOf({ ...minimalHttp, VS_FOLLOW_INTERVAL_S: '31', VS_FOLLOW_MAX_MIN: '0' })).toEqual([
      'VS_FOLLOW_INTERVAL_S must be at most 30 seconds (polls back off to 30 s from it)',
      'VS_FOLLOW_MAX_MIN must be a time in minutes greater than 0',
    ]);
    expect(problemsOf({ ...minimalHttp, VS_FOLLOW_INTERVAL_S: '2.5' })).toEqual(['VS_FOLLOW_INTERVAL_S must be a time in seconds (a whole number)']);
  });

  test('VS_WORKFLOW_READS is viewers unless set to everyone; anything else is refused by name', () => {
    expect(loadConfig(minimalHttp).roles.workflowReads).toBe('viewers');
    expect(loadConfig({ ...minimalHttp, VS_WORKFLOW_READS: 'everyone' }).roles.workflowReads).toBe('everyone');
    expect(problemsOf({ ...minimalHttp, VS_WORKFLOW_READS: 'all' })).toEqual(['VS_WORKFLOW_READS must be viewers or everyone']);
  });

  test('never echoes a secret value, not even a malformed one', () => {
    const err = (() => {
      try {
        loadConfig({ SLACK_BOT_TOKEN: 'not-a-token-SECRET1', SLACK_APP_TOKEN: 'bad-app-SECRET2', VS_API_URL: 'https://x.example', VS_API_KEY: 'k-SECRET3' });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected failure');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).not.toMatch(/SECRET\d/);
    expect(JSON.stringify(err.problems)).not.toMatch(/SECRET\d/);
  });

  test('real cloud API credentials are required unless the sandbox is used', () => {
    expect(problemsOf({ ...minimalHttp, VS_API_URL: 'https://cloud.example.com' }).join('\n')).toMatch(/VS_API_KEY/);
    const c = loadConfig({ ...minimalHttp, VS_API_URL: 'https://cloud.example.com', VS_ACCOUNT_ID: '7', VS_API_KEY: 'live-key-123' });
    expect(c.cloud).toMatchObject({ url: 'https://cloud.example.com', accountId: '7', apiKey: 'live-key-123' });
  });

  test('secretValues lists the tokens, signing secret and API key for redaction', () => {
    const c = loadConfig({ ...minimalHttp, SLACK_APP_TOKEN: 'xapp-1-zzz', VS_API_URL: 'https://c.example', VS_ACCOUNT_ID: '1', VS_API_KEY: 'live-key-123' });
    expect(secretValues(c).sort()).toEqual(['live-key-123', 'sig-secret-value', 'xapp-1-zzz', 'xoxb-1-abcdef'].sort());
  });

  test('DATABASE_URL selects PostgreSQL (postgres:// or postgresql://); unset keeps SQLite; the pool is bounded', () => {
    expect(loadConfig(minimalHttp)).toMatchObject({ databaseUrl: undefined, dbMaxConnections: 10, ops: { auditRetentionDays: 400 } });
    for (const url of ['postgres://bot:pw@db.example:5432/vs', 'postgresql://bot@db.example/vs?sslmode=require']) {
      expect(loadConfig({ ...minimalHttp, DATABASE_URL: url, VS_DB_MAX_CONNECTIONS: '4' })).toMatchObject({ databaseUrl: url, dbMaxConnections: 4 });
    }
  });

  test('a DATABASE_URL that is not PostgreSQL is refused without echoing it (it holds a password)', () => {
    for (const url of ['mysql://bot:hunter2-secret@db/vs', 'db.example:5432', 'not a url hunter2-secret']) {
      const problems = problemsOf({ ...minimalHttp, DATABASE_URL: url, VS_DB_MAX_CONNECTIONS: '0' });
      expect(problems).toEqual(
        expect.arrayContaining([expect.stringMatching(/^DATABASE_URL must be a PostgreSQL URL/), expect.stringMatching(/^VS_DB_MAX_CONNECTIONS /)]),
      );
      expect(problems.join('\n')).not.toContain('hunter2');
    }
  });

  test('secretValues masks the database password, as written and decoded', () => {
    const c = loadConfig({ ...minimalHttp, DATABASE_URL: 'postgres://bot:p%40ss-word-1@db.example:5432/vs' });
    expect(secretValues(c)).toEqual(expect.arrayContaining(['p%40ss-word-1', 'p@ss-word-1']));
    // A % that escapes nothing: the password as written.
    expect(secretValues(loadConfig({ ...minimalHttp, DATABASE_URL: 'postgres://bot:pass%zz-word@db.example:5432/vs' }))).toContain('pass%zz-word');
  });

  test.each(['VS_ADMINS', 'VS_OPERATORS', 'VS_VIEWERS', 'VS_MUTATION_CHANNELS', 'VS_APPROVALS'])(
    '%s present but empty or only commas stops start-up',
    (key) => {
      for (const value of ['', '   ', ',', ' , ,']) {
        const joined = problemsOf({ ...minimalHttp, [key]: value }).join('\n');
        expect(joined).toContain(key);
        expect(joined).toMatch(/set a value or remove the line/);
      }
    },
  );

  test('other empty settings still count as unset next to a security setting that is set', () => {
    const c = loadConfig({ ...minimalHttp, VS_AUDIT_CHANNEL: '', VS_DB_PATH: ' ', VS_VIEWERS: 'U0VIEW' });
    expect(c.auditChannel).toBeUndefined();
    expect(c.roles.viewers).toEqual(['U0VIEW']);
  });

  /** The lines of .env.example: those in force as it stands, and the commented `# NAME=value` ones. */
  function envExample(): { active: Record<string, string>; commented: [string, string][] } {
    const text = readFileSync(join(__dirname, '..', '.env.example'), 'utf8');
    const active: Record<string, string> = {};
    const commented: [string, string][] = [];
    for (const line of text.split('\n')) {
      const m = /^(#?)\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
      if (!m) continue;
      if (m[1]) commented.push([m[2]!, m[3]!]);
      else active[m[2]!] = m[3]!;
    }
    return { active, commented };
  }

  test('.env.example copied as it stands changes nothing: its lines in force are the defaults', () => {
    const { active } = envExample();
    expect(loadConfig({ ...minimalHttp, ...active })).toEqual(loadConfig(minimalHttp));
  });

  test('each commented line of .env.example, uncommented, works or is refused as a placeholder that names its variable (or for a setting it needs)', () => {
    const { active, commented } = envExample();
    const security = ['VS_ADMINS', 'VS_OPERATORS', 'VS_VIEWERS', 'VS_MUTATION_CHANNELS'];
    expect(security.filter((k) => commented.some(([name]) => name === k))).toEqual(security);
    const refused: string[] = [];
    for (const [name, value] of commented) {
      let problems: string[] = [];
      try {
        loadConfig({ ...minimalHttp, ...active, [name]: value });
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        problems = e.problems;
      }
      if (problems.length === 0) continue;
      // Settings that go together (on call: the provider, its key, its schedules) name what the line needs besides.
      const needs = problems.filter((p) => new RegExp(`^\\S+( or \\S+)? is required with ${name}\\b`).test(p));
      const own = problems.filter((p) => !needs.includes(p));
      if (own.length === 0) continue;
      refused.push(name);
      expect(own).toEqual([expect.stringMatching(new RegExp(`^${name} still holds a placeholder from \\.env\\.example: replace it with .+`))]);
    }
    // The placeholders a newcomer meets first are among them.
    expect(refused).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'VS_ACCOUNT_ID', 'VS_API_KEY', 'DATABASE_URL', ...security]),
    );
  });

  test('docs/production.md says what each setting protects against: its table names every variable the bot reads, and no other', () => {
    const production = readFileSync(join(__dirname, '..', 'docs', 'production.md'), 'utf8');
    const section = production.slice(production.indexOf('## What each setting protects against'));
    const table = section.slice(section.indexOf('| setting | protects against |')).split('\n\n')[0]!;
    const named = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));
    expect([...new Set(named)].sort()).toEqual([...SETTING_NAMES].sort());
  });

  test('.env.example and the configuration table of docs/reference.md (the README links it) name every variable the bot reads, and no other', () => {
    const { active, commented } = envExample();
    const inExample = new Set([...Object.keys(active), ...commented.map(([name]) => name)]);
    const readme = readFileSync(join(__dirname, '..', 'docs', 'reference.md'), 'utf8');
    const table = readme.slice(readme.indexOf('| variable | meaning | default |')).split('\n\n')[0]!;
    const inReadme = new Set(
      table
        .split('\n')
        .slice(2)
        .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!)),
    );
    const read = [...SETTING_NAMES].sort();
    expect([...inExample].sort()).toEqual(read);
    expect([...inReadme].sort()).toEqual(read);
  });

  test.each([
    ['SLACK_BOT_TOKEN', 'xoxb-...', /Bot User OAuth Token \(xoxb-…\) from "OAuth & Permissions"/],
    ['SLACK_BOT_TOKEN', 'xoxb-<your-token>', /Bot User OAuth Token/],
    ['SLACK_BOT_TOKEN', 'changeme', /Bot User OAuth Token/],
    ['SLACK_SIGNING_SECRET', '...', /Signing Secret from "Basic Information → App Credentials"/],
    ['SLACK_APP_TOKEN', 'xapp-your-app-token', /app-level token \(xapp-…\) with connections:write/],
    ['VS_ACCOUNT_ID', 'your-account-id', /account id of your cloud API/],
    ['VS_API_KEY', 'your-api-key', /API key generated for that account/],
    ['VS_API_KEY', 'your_api_key…', /API key generated for that account/],
    ['VS_ADMINS', 'U0REAL1,U012ADMIN', /member ids \(U…/],
    ['VS_AUDIT_CHANNEL', 'C012AUDIT', /a channel id \(C…/],
  ])('%s=%s is refused as a placeholder: the variable, what to put instead, never the value', (key, value, hint) => {
    const env = { ...minimalHttp, VS_API_URL: 'https://cloud.example.com', VS_ACCOUNT_ID: '1001', VS_API_KEY: 'live-key-123', [key]: value };
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${key} still holds a placeholder from \\.env\\.example: replace it with `));
    expect(problems[0]).toMatch(hint);
    expect(problems[0]).not.toContain(value);
  });

  test('real-looking values are not taken for placeholders', () => {
    const c = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1234-5678-AbCdEfYourx',
      SLACK_APP_TOKEN: 'xapp-1-A0123-4567-abcdef',
      VS_API_URL: 'https://cloud.example.com',
      VS_ACCOUNT_ID: 'acct-7',
      VS_API_KEY: 'k3y-your0',
      VS_ADMINS: 'U0120ADMIN,S0ONCALL',
    });
    expect(c.roles.admins).toEqual(['U0120ADMIN', 'S0ONCALL']);
  });

  test.each([
    ['VS_API_URL', 'http://cloud.example.com/'],
    ['VS_API_URL', 'http://10.0.0.5:8080'],
    ['SLACK_API_URL', 'http://slack-proxy.internal/api/'],
  ])('%s=%s (plain http off this machine) stops start-up', (key, value) => {
    const joined = problemsOf({ ...minimalHttp, VS_ACCOUNT_ID: '1', VS_API_KEY: 'live-key-123', [key]: value }).join('\n');
    expect(joined).toMatch(new RegExp(`${key} uses plain http://`));
    expect(joined).not.toContain('live-key-123');
  });

  test.each(['http://127.0.0.1:4010', 'http://localhost:4010/', 'http://[::1]:4010', 'https://cloud.example.com'])('%s is accepted for both URLs', (url) => {
    const c = loadConfig({ ...minimalHttp, VS_ACCOUNT_ID: '1', VS_API_KEY: 'live-key-123', VS_API_URL: url, SLACK_API_URL: url });
    expect(c.cloud.url).toBe(url);
  });

  test.each([
    ['SLACK_API_URL', 'https://proxy-user:hunter2-secret@slack-proxy.example/api/', /does not read HTTPS_PROXY or HTTP_PROXY.*without a password/],
    ['SLACK_API_URL', 'https://only-a-user@slack-proxy.example/api/', /plain https:\/\/ URL/],
    ['VS_API_URL', 'https://acct:hunter2-secret@cloud.example.com/', /VS_ACCOUNT_ID and VS_API_KEY.*remove the user info/],
  ])('%s with user info (%s) stops start-up, says what to do instead, and never echoes it', (key, url, instead) => {
    const problems = problemsOf({ ...minimalHttp, VS_ACCOUNT_ID: '1', VS_API_KEY: 'live-key-123', [key]: url });
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^${key} carries a user name or password \\(user:password@…\\), which would be written to logs: `)),
    ]);
    expect(problems[0]).toMatch(instead);
    expect(problems.join('\n')).not.toMatch(/hunter2|proxy-user|only-a-user|acct:/);
  });

  test('approvals: unset by default with a 30-minute request time; a list that is not of action names is refused with the rest', () => {
    expect(loadConfig(minimalHttp).approvals).toEqual({ actions: [], ttlMs: 30 * 60_000 });
    expect(loadConfig({ ...minimalHttp, VS_APPROVAL_TTL_MIN: '5' }).approvals.ttlMs).toBe(5 * 60_000);
    const problems = problemsOf({ ...minimalHttp, VS_APPROVALS: 'disk_add, Disk Remove!', VS_APPROVAL_TTL_MIN: '0' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'VS_APPROVALS must be a comma-separated list of change actions (e.g. disk_add,power_reboot)',
        expect.stringMatching(/^VS_APPROVAL_TTL_MIN must be a time in minutes greater than 0/),
      ]),
    );
  });

  test("VS_BOT_ADDRESSES: the bot's addresses toward the cloud and the API's port, for the firewall form's second confirmation", () => {
    const cloud = { ...minimalHttp, VS_API_URL: 'https://cloud.example.com/api', VS_ACCOUNT_ID: 'acct', VS_API_KEY: 'key-0123456789' };
    expect(loadConfig(cloud).forms.botAccess).toBeUndefined();
    expect(loadConfig({ ...cloud, VS_BOT_ADDRESSES: '203.0.113.7, 198.51.100.0/28,192.0.2.1-192.0.2.9' }).forms.botAccess).toEqual({
      addresses: ['203.0.113.7', '198.51.100.0/28', '192.0.2.1-192.0.2.9'],
      port: 443,
    });
    expect(loadConfig({ ...cloud, VS_API_URL: 'https://cloud.example.com:8443/api', VS_BOT_ADDRESSES: '203.0.113.7' }).forms.botAccess?.port).toBe(8443);
    expect(loadConfig({ ...cloud, VS_API_URL: 'http://127.0.0.1:8080', VS_BOT_ADDRESSES: '127.0.0.1' }).forms.botAccess?.port).toBe(8080);
    // The in-process sandbox is reached from no address.
    expect(loadConfig({ ...minimalHttp, VS_BOT_ADDRESSES: '203.0.113.7' }).forms.botAccess).toBeUndefined();
    expect(problemsOf({ ...cloud, VS_BOT_ADDRESSES: '203.0.113.7,the-office' })).toEqual([
      expect.stringMatching(/^VS_BOT_ADDRESSES must be a comma-separated list of addresses, CIDR blocks or ranges/),
    ]);
  });

  test('VS_MAX_DISK_GB: 2048 by default; a whole number of GB up to the 65,536 the cloud API takes, else start-up stops naming it', () => {
    expect(loadConfig(minimalHttp).forms).toEqual({ maxDiskGb: 2048 });
    expect(loadConfig({ ...minimalHttp, VS_MAX_DISK_GB: '500' }).forms).toEqual({ maxDiskGb: 500 });
    expect(loadConfig({ ...minimalHttp, VS_MAX_DISK_GB: '65536' }).forms).toEqual({ maxDiskGb: 65_536 });
    expect(problemsOf({ ...minimalHttp, VS_MAX_DISK_GB: '65537' })).toEqual([
      expect.stringMatching(/^VS_MAX_DISK_GB must be at most 65536 \(the largest disk the cloud API takes\)/),
    ]);
    expect(problemsOf({ ...minimalHttp, VS_MAX_DISK_GB: '2 TB' })).toEqual([expect.stringMatching(/^VS_MAX_DISK_GB must be a size in GB \(a whole number\)/)]);
    expect(problemsOf({ ...minimalHttp, VS_MAX_DISK_GB: '0' })).toEqual([expect.stringMatching(/^VS_MAX_DISK_GB must be a size in GB greater than 0/)]);
  });

  test('VS_APPROVALS names the actions that wait for a second person, by name (start-up checks them against the table of changes)', () => {
    expect(loadConfig({ ...minimalHttp, VS_APPROVALS: ' backup_restore ,' }).approvals.actions).toEqual(['backup_restore']);
    expect(loadConfig({ ...minimalHttp, VS_APPROVALS: 'disk_add,power_reboot' }).approvals.actions).toEqual(['disk_add', 'power_reboot']);
  });

  test('VS_PANEL_URL: the scheme and host of VS_API_URL by default (on the sandbox, null: its own address, known once it listens)', () => {
    expect(loadConfig(minimalHttp).panelUrl).toBeNull();
    const realApi = { ...minimalHttp, VS_API_URL: 'https://api.cloud.example.com:8443/v1/', VS_ACCOUNT_ID: 'acct-7', VS_API_KEY: 'key-0123456789' };
    expect(loadConfig(realApi).panelUrl).toBe('https://api.cloud.example.com:8443');
    expect(loadConfig({ ...realApi, VS_PANEL_URL: 'https://cloud.example.com/panel/' }).panelUrl).toBe('https://cloud.example.com/panel');
  });

  test('VS_PANEL_URL must be an http(s) base URL, without user info, query or fragment', () => {
    for (const bad of [
      'ftp://cloud.example.com',
      'https://u:p@cloud.example.com',
      'https://cloud.example.com/?a=1',
      'https://cloud.example.com/#f',
      'cloud.example.com',
    ])
      expect(problemsOf({ ...minimalHttp, VS_PANEL_URL: bad })).toEqual([expect.stringMatching(/^VS_PANEL_URL must be (the http\(s\) )?(a )?base URL/)]);
  });

  test('connection budgets: changes keep 4 of the total by default (at most half), and must leave some for reads', () => {
    expect(loadConfig({ ...minimalHttp, VS_API_MAX_CONNECTIONS: '4' }).cloud.changeConnections).toBe(2);
    expect(loadConfig({ ...minimalHttp, VS_API_MAX_CONNECTIONS: '40', VS_API_CHANGE_CONNECTIONS: '10' }).cloud).toMatchObject({
      maxConnections: 40,
      changeConnections: 10,
    });
    expect(problemsOf({ ...minimalHttp, VS_API_MAX_CONNECTIONS: '8', VS_API_CHANGE_CONNECTIONS: '8' }).join('\n')).toMatch(
      /VS_API_CHANGE_CONNECTIONS must be less than VS_API_MAX_CONNECTIONS \(8\)/,
    );
    expect(problemsOf({ ...minimalHttp, VS_API_MAX_CONNECTIONS: '1' }).join('\n')).toMatch(/VS_API_MAX_CONNECTIONS must be at least 2/);
    expect(problemsOf({ ...minimalHttp, VS_API_CONNECTION_WAIT_MS: '0', VS_READS_PER_USER_PER_MINUTE: 'lots' }).join('\n')).toMatch(
      /VS_API_CONNECTION_WAIT_MS[\s\S]*VS_READS_PER_USER_PER_MINUTE|VS_READS_PER_USER_PER_MINUTE[\s\S]*VS_API_CONNECTION_WAIT_MS/,
    );
  });
});

describe('mode', () => {
  test('bot token + signing secret: HTTP; + app token: Socket Mode', () => {
    expect(loadConfig(minimalHttp).mode).toBe('http');
    expect(loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1-A', VS_API_URL: 'sandbox' }).mode).toBe('socket');
  });

  // The sandbox is never a default when connected to Slack: a deployment that forgot VS_API_URL (even one on a
  // production DATABASE_URL) would serve make-believe servers, report itself healthy and audit make-believe changes.
  test.each([
    ['HTTP', { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_SIGNING_SECRET: 'sig-secret-value' }],
    ['Socket Mode', { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_APP_TOKEN: 'xapp-1-A' }],
    ['HTTP on PostgreSQL', { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_SIGNING_SECRET: 'sig', DATABASE_URL: 'postgres://vs:pw-secret@db.example:5432/vs' }],
  ])('%s without VS_API_URL stops start-up naming it, with every other problem', (_mode, env) => {
    const problems = problemsOf({ ...env, VS_API_FORMAT: 'yaml' });
    expect(problems).toEqual(
      expect.arrayContaining([
        'VS_API_URL is required in HTTP and Socket Mode: the base URL of your cloud API (https://cloud.example.com), ' +
          'or "sandbox" to run on the built-in simulator and its make-believe servers',
        expect.stringMatching(/^VS_API_FORMAT /),
      ]),
    );
    expect(problems).toHaveLength(2);
  });

  test('with Slack, the sandbox runs only when asked for by name', () => {
    expect(loadConfig({ ...minimalHttp, VS_API_URL: 'sandbox' }).cloud).toMatchObject({ url: 'sandbox', accountId: expect.any(String) });
    expect(loadConfig({ ...minimalHttp, VS_API_URL: 'https://cloud.example.com', VS_ACCOUNT_ID: '7', VS_API_KEY: 'live-key-123' }).cloud.url).toBe(
      'https://cloud.example.com',
    );
  });

  test('no Slack variable at all: local mode, with credentials made up per run and the Web API on the loopback stand-in', () => {
    const a = loadConfig({ PORT: '4321' });
    const b = loadConfig({ SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: ' ' });
    expect(a.mode).toBe('local');
    expect(b.mode).toBe('local');
    expect(a.slack.botToken).toMatch(/^xoxb-local-[0-9a-f]{36}$/);
    expect(a.slack.signingSecret).toMatch(/^[0-9a-f]{48}$/);
    expect(a.slack.botToken).not.toBe(b.slack.botToken);
    expect(a.slack.signingSecret).not.toBe(b.slack.signingSecret);
    expect(a.slack.apiUrl).toBe('http://127.0.0.1:4321/api/');
    expect(a.cloud.url).toBe('sandbox');
  });

  test('local mode keeps its own SQLite file whatever VS_DB_PATH says, with the make-believe roles, approvals and audit channel unless configured', () => {
    const a = loadConfig({ VS_DB_PATH: './data/vs-chatops.sqlite' });
    expect(a.dbPath).toBe(LOCAL_MODE.dbPath);
    expect(a.dbPath).not.toBe(loadConfig(minimalHttp).dbPath);
    expect(a.databaseUrl).toBeUndefined();
    expect(a).toMatchObject({
      madeUpRoles: true,
      auditChannel: 'C0AUDIT',
      roles: { admins: ['U0ADMIN', 'U0ADMIN2'], operators: ['U0OPERATOR', 'S0ONCALL'], viewers: null },
      // One admin asks for a restore, the other approves it.
      approvals: { actions: ['backup_restore'] },
    });
    expect(loadConfig({ VS_APPROVALS: 'disk_add' }).approvals.actions).toEqual(['disk_add']);
    const b = loadConfig({ VS_VIEWERS: 'U0VIEWER', VS_AUDIT_CHANNEL: 'C0OTHER' });
    expect(b).toMatchObject({
      madeUpRoles: false,
      auditChannel: 'C0OTHER',
      roles: { admins: [], operators: [], viewers: ['U0VIEWER'] },
      approvals: { actions: [] },
    });
    expect(loadConfig(minimalHttp)).toMatchObject({ madeUpRoles: false, auditChannel: undefined, approvals: { actions: [] } });
  });

  test('local mode with DATABASE_URL stops start-up, naming it and never its password', () => {
    const problems = problemsOf({ DATABASE_URL: 'postgres://bot:hunter2-secret@db.example:5432/vs' });
    expect(problems).toEqual([expect.stringMatching(/^DATABASE_URL is set, but no Slack variable is, which means local mode: .*connects to no database/)]);
    expect(problems[0]).toContain(LOCAL_MODE.dbPath);
    expect(problems[0]).not.toContain('hunter2');
  });

  test.each([
    ['only a bot token', { SLACK_BOT_TOKEN: 'xoxb-1' }, /SLACK_SIGNING_SECRET is required/],
    ['only a signing secret', { SLACK_SIGNING_SECRET: 'sig' }, /SLACK_BOT_TOKEN is required/],
    ['only an app token', { SLACK_APP_TOKEN: 'xapp-1-A' }, /SLACK_BOT_TOKEN is required/],
  ])('half-configured Slack (%s) stops start-up with the configuration error, not local mode', (_name, env, expected) => {
    expect(problemsOf(env).join('\n')).toMatch(expected);
  });

  test('a real VS_API_URL with no Slack variable stops start-up and says why', () => {
    const joined = problemsOf({ VS_API_URL: 'https://cloud.example.com', VS_ACCOUNT_ID: '7', VS_API_KEY: 'live-key-123' }).join('\n');
    expect(joined).toMatch(/VS_API_URL names a real cloud API/);
    expect(joined).toMatch(/local mode runs on the sandbox only/);
    expect(joined).not.toContain('live-key-123');
  });
});

describe('on call, break glass and change events (docs/product.md, On call)', () => {
  const KEY = 'e93facc04764012d7bfb002500d5d1a6';
  const onCall = { ...minimalHttp, VS_ONCALL_PROVIDER: 'pagerduty', VS_PAGERDUTY_TOKEN: 'pd-read-only-key', VS_ONCALL_SCHEDULES: 'PABCDE1, PFGHIJ2' };

  test('all off by default: no on-call role, break glass off for an hour, no change events, PagerDuty’s own addresses', () => {
    expect(loadConfig(minimalHttp)).toMatchObject({
      onCall: null,
      breakGlass: { on: false, windowMs: 3_600_000 },
      pagerDuty: { standIn: false, routingKey: null, apiUrl: 'https://api.pagerduty.com', eventsUrl: 'https://events.pagerduty.com' },
    });
  });

  test('on call through PagerDuty: its schedules or policies, up to a level, the role it gives, kept for the cache time', () => {
    expect(loadConfig(onCall)).toMatchObject({
      onCall: { provider: 'pagerduty', scheduleIds: ['PABCDE1', 'PFGHIJ2'], escalationPolicyIds: [], maxLevel: 1, role: 'operator', cacheMs: 60_000 },
      pagerDuty: { token: 'pd-read-only-key' },
    });
    const policies = loadConfig({
      ...onCall,
      VS_ONCALL_SCHEDULES: undefined,
      VS_ONCALL_ESCALATION_POLICIES: 'PQRSTU3',
      VS_ONCALL_MAX_LEVEL: '2',
      VS_ONCALL_ROLE: 'admin',
      VS_ONCALL_CACHE_S: '30',
      VS_PAGERDUTY_API_URL: 'http://127.0.0.1:4999/',
    });
    expect(policies).toMatchObject({
      onCall: { scheduleIds: [], escalationPolicyIds: ['PQRSTU3'], maxLevel: 2, role: 'admin', cacheMs: 30_000 },
      pagerDuty: { apiUrl: 'http://127.0.0.1:4999' },
    });
  });

  test('what goes together is asked for by name; nothing is guessed, and no key is echoed', () => {
    expect(problemsOf({ ...minimalHttp, VS_ONCALL_PROVIDER: 'pagerduty' })).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_TOKEN is required with VS_ONCALL_PROVIDER=pagerduty: a read-only REST API key/),
      expect.stringMatching(/^VS_ONCALL_SCHEDULES or VS_ONCALL_ESCALATION_POLICIES is required with VS_ONCALL_PROVIDER=pagerduty/),
    ]);
    expect(problemsOf({ ...minimalHttp, VS_ONCALL_SCHEDULES: 'PABCDE1', VS_PAGERDUTY_TOKEN: 'secret-pd-key' })).toEqual([
      'VS_ONCALL_PROVIDER=pagerduty is required with VS_PAGERDUTY_TOKEN: without it nobody gets a role from being on call',
      'VS_ONCALL_PROVIDER=pagerduty is required with VS_ONCALL_SCHEDULES: without it nobody gets a role from being on call',
    ]);
    const bad = problemsOf({
      ...onCall,
      VS_ONCALL_PROVIDER: 'opsgenie',
      VS_ONCALL_SCHEDULES: 'schedule-1',
      VS_ONCALL_ROLE: 'none',
      VS_ONCALL_MAX_LEVEL: '0',
      VS_ONCALL_CACHE_S: '86400',
      VS_BREAKGLASS: 'yes',
      VS_BREAKGLASS_MIN: '2000',
    }).join('\n');
    for (const name of [
      'VS_ONCALL_PROVIDER',
      'VS_ONCALL_SCHEDULES',
      'VS_ONCALL_ROLE',
      'VS_ONCALL_MAX_LEVEL',
      'VS_ONCALL_CACHE_S',
      'VS_BREAKGLASS ',
      'VS_BREAKGLASS_MIN',
    ])
      expect(bad).toContain(name);
    expect(bad).not.toContain('pd-read-only-key');
  });

  test('keys go over https only, off this machine', () => {
    expect(problemsOf({ ...onCall, VS_PAGERDUTY_API_URL: 'http://pagerduty.internal' })).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_API_URL uses plain http:\/\/ to pagerduty\.internal, which would send the PagerDuty API key in clear/),
    ]);
    expect(problemsOf({ ...minimalHttp, VS_PAGERDUTY_ROUTING_KEY: KEY, VS_PAGERDUTY_EVENTS_URL: 'http://events.internal' })).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_EVENTS_URL uses plain http:\/\/ to events\.internal, which would send the routing key in clear/),
    ]);
  });

  test("change events need a service's 32-character integration key, never a ruleset's; the keys are masked in logs", () => {
    expect(loadConfig({ ...minimalHttp, VS_PAGERDUTY_ROUTING_KEY: KEY }).pagerDuty.routingKey).toBe(KEY);
    expect(problemsOf({ ...minimalHttp, VS_PAGERDUTY_ROUTING_KEY: 'short-key' })).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_ROUTING_KEY must be a service's 32-character/),
    ]);
    expect(problemsOf({ ...minimalHttp, VS_PAGERDUTY_ROUTING_KEY: `R${KEY.slice(1)}` })).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_ROUTING_KEY must be a service's integration key: a ruleset's routing key \(starting with R\)/),
    ]);
    expect(secretValues(loadConfig({ ...onCall, VS_PAGERDUTY_ROUTING_KEY: KEY }))).toEqual(expect.arrayContaining(['pd-read-only-key', KEY]));
  });

  test('local mode: on call through its own PagerDuty stand-in, change events to it, break glass on; a real PagerDuty is refused', () => {
    expect(loadConfig({})).toMatchObject({
      onCall: { scheduleIds: [LOCAL_MODE.onCallSchedule], role: 'operator' },
      breakGlass: { on: true },
      pagerDuty: { standIn: true, routingKey: expect.stringMatching(/^[0-9a-f]{32}$/) },
    });
    expect(loadConfig({ VS_BREAKGLASS: 'off' }).breakGlass.on).toBe(false);
    const problems = problemsOf({ VS_PAGERDUTY_ROUTING_KEY: KEY, VS_PAGERDUTY_TOKEN: 'pd-key' });
    expect(problems).toEqual([
      expect.stringMatching(/^VS_PAGERDUTY_TOKEN, VS_PAGERDUTY_ROUTING_KEY are set, but no Slack variable is.*runs its own PagerDuty stand-in/),
    ]);
    expect(problems.join('')).not.toContain(KEY);
  });
});
