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
    expect(loadConfig(http).agents).toEqual({
      mcp: false,
      port: null,
      allowedOrigins: [],
      tokenMaxHours: 168,
      callsPerMinute: 60,
      channel: null,
      denyMemoryMs: 30 * 60_000,
    });
    expect(loadConfig({}).agents.mcp).toBe(true);
    // Local mode posts agents' requests in the stand-in's incident channel.
    expect(loadConfig({}).agents.channel).toBe('C0INCIDENT');
    expect(loadConfig({ VS_MCP: 'off' }).agents.mcp).toBe(false);
  });

  test('origins are read as a list without trailing slashes; anything else is refused, naming the variable', () => {
    expect(
      loadConfig({ ...http, VS_MCP: 'on', VS_AGENT_CHANNEL: 'C0AGENTS', VS_MCP_ALLOWED_ORIGINS: 'https://a.example.com/, http://b.example.com:8080' }).agents
        .allowedOrigins,
    ).toEqual(['https://a.example.com', 'http://b.example.com:8080']);
    expect(problemsOf({ ...http, VS_MCP_ALLOWED_ORIGINS: 'https://a.example.com/path' })).toContain('VS_MCP_ALLOWED_ORIGINS');
    expect(problemsOf({ ...http, VS_AGENT_TOKEN_MAX_HOURS: '5000' })).toContain('VS_AGENT_TOKEN_MAX_HOURS');
    expect(problemsOf({ ...http, VS_MCP: 'yes' })).toContain('VS_MCP');
    expect(problemsOf({ ...http, VS_AGENT_CHANNEL: '#incident' })).toContain('VS_AGENT_CHANNEL');
    expect(problemsOf({ ...http, VS_AGENT_DENY_MEMORY_MIN: '0' })).toContain('VS_AGENT_DENY_MEMORY_MIN');
  });

  test("VS_MCP=on needs VS_AGENT_CHANNEL: agents' requests are posted there; the deny memory is read in minutes", () => {
    expect(problemsOf({ ...http, VS_MCP: 'on' })).toContain('VS_MCP is on, but VS_AGENT_CHANNEL is not set');
    const agents = loadConfig({ ...http, VS_MCP: 'on', VS_AGENT_CHANNEL: 'C0AGENTS', VS_AGENT_DENY_MEMORY_MIN: '5' }).agents;
    expect(agents).toMatchObject({ mcp: true, channel: 'C0AGENTS', denyMemoryMs: 5 * 60_000 });
  });

  test('VS_MCP=on in Socket Mode needs VS_MCP_PORT (it has no HTTP port for Slack) and VS_AGENT_CHANNEL; a port is a TCP port', () => {
    expect(problemsOf({ ...socket, VS_MCP: 'on', VS_AGENT_CHANNEL: 'C0AGENTS' })).toContain(
      'VS_MCP is on in Socket Mode, which has no HTTP port for the MCP endpoint: set VS_MCP_PORT',
    );
    expect(problemsOf({ ...socket, VS_MCP: 'on', VS_MCP_PORT: '3001' })).toContain('VS_AGENT_CHANNEL is not set');
    expect(loadConfig({ ...socket, VS_MCP: 'on', VS_MCP_PORT: '3001', VS_AGENT_CHANNEL: 'C0AGENTS' }).agents).toMatchObject({ mcp: true, port: 3001 });
    expect(problemsOf({ ...http, VS_MCP_PORT: '70000' })).toContain('VS_MCP_PORT');
    expect(loadConfig(socket).agents.mcp).toBe(false);
  });
});
