import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/errors';

// The agents' settings (docs/product.md, Agents ask, people decide; Configuration).

const http = { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_SIGNING_SECRET: 'sig-secret-value', VS_API_URL: 'sandbox' };
const socket = { SLACK_BOT_TOKEN: 'xoxb-1-abcdef', SLACK_APP_TOKEN: 'xapp-1-abcdef', VS_API_URL: 'sandbox' };

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  return '';
}

describe('agent settings', () => {
  test('the endpoint is off unless set with Slack, on in local mode; the defaults', () => {
    expect(loadConfig(http).agents).toEqual({ mcp: false, allowedOrigins: [], tokenMaxHours: 168, callsPerMinute: 60 });
    expect(loadConfig({}).agents.mcp).toBe(true);
    expect(loadConfig({ VS_MCP: 'off' }).agents.mcp).toBe(false);
  });

  test('origins are read as a list without trailing slashes; anything else is refused, naming the variable', () => {
    expect(loadConfig({ ...http, VS_MCP: 'on', VS_MCP_ALLOWED_ORIGINS: 'https://a.example.com/, http://b.example.com:8080' }).agents.allowedOrigins).toEqual([
      'https://a.example.com',
      'http://b.example.com:8080',
    ]);
    expect(problemsOf({ ...http, VS_MCP_ALLOWED_ORIGINS: 'https://a.example.com/path' })).toContain('VS_MCP_ALLOWED_ORIGINS');
    expect(problemsOf({ ...http, VS_AGENT_TOKEN_MAX_HOURS: '5000' })).toContain('VS_AGENT_TOKEN_MAX_HOURS');
    expect(problemsOf({ ...http, VS_MCP: 'yes' })).toContain('VS_MCP');
  });

  test('VS_MCP=on in Socket Mode is refused: the endpoint is served on the HTTP port only', () => {
    expect(problemsOf({ ...socket, VS_MCP: 'on' })).toContain('VS_MCP is on, but the MCP endpoint is served on the HTTP port only');
    expect(loadConfig(socket).agents.mcp).toBe(false);
  });
});
