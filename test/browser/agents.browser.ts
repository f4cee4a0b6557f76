/// <reference lib="dom" />
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Locator, type Page } from 'playwright-core';
import type { SpawnedBot } from '../helpers/spawned-bot';
import { actAs, SCREENSHOTS, useLocalPage } from './local-page-driver';

// Agents ask, people decide (docs/product.md), on the local page in a real browser: Otto makes a token by typing
// `/vs agent token laptop`, the page's "Connect an agent" note says where to connect, an MCP client (the SDK's own)
// finds web-1 by name, asks whether port 443 reaches it, asks for a reboot of it, the request shows in #incident-42 as
// the agent's, Otto approves it on the page, and change_status follows it to done (the README's tour).

const local = useLocalPage({ VS_CHANGES_PER_USER_PER_MINUTE: '1000' }, { timeoutMs: 8000 });
let bot: SpawnedBot;
let page: Page;

beforeAll(async () => {
  ({ bot, page } = local);
});

const channelMessages = () => page.getByRole('log', { name: undefined }).locator('xpath=./article');

const as = (person: RegExp) => actAs(page, person);

async function expectText(locator: Locator, pattern: RegExp): Promise<void> {
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout: 10_000 });
}

async function typeCommand(command: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(command);
  await box.press('Enter');
}

/** A tool's structured answer. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answer = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(answer.isError).toBeFalsy();
  return answer.structuredContent as Record<string, unknown>;
}

test('an agent asks for a reboot with a token made on the page; its owner approves it in the channel; change_status says done', async () => {
  await as(/Otto/);
  await page.getByRole('navigation', { name: 'Channels' }).getByRole('button', { name: '# incident-42' }).click();
  await typeCommand('/vs agent token laptop');
  await expectText(channelMessages(), /vsa_[A-Za-z0-9_-]{43}/);
  const shown = (await channelMessages().filter({ hasText: /vsa_/ }).last().textContent()) ?? '';
  const token = /vsa_[A-Za-z0-9_-]{43}/.exec(shown)![0];

  // The page says how to connect: its own address with /mcp.
  await page.getByText('Connect an agent').click();
  await expectText(page.locator('details'), /\/vs agent token laptop/);

  const client = new Client({ name: 'browser-test-agent', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${bot.port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  try {
    // Find the server by name, and ask whether 443 reaches it: the answer per interface, each with its deciding rules.
    const found = await call(client, 'find_server', { query: 'web-1' });
    expect(found).toMatchObject({ match: 'one', servers: [{ id: 42, label: 'web-1' }] });
    const port = (await call(client, 'port_check', { server: 'web-1', port: 443 })).port_check as {
      question: unknown;
      interfaces: { decisions: unknown[]; reaches_default: boolean }[];
    };
    expect(port.question).toEqual({ port: 443, protocol: 'tcp', from: null });
    expect(port.interfaces.length).toBeGreaterThan(0);
    expect(port.interfaces.every((i) => i.decisions.length > 0 || i.reaches_default)).toBe(true);

    const asked = await call(client, 'request_power', { server: 'web-1', power_action: 'reboot', reason: 'the agent saw it hang' });
    expect(asked).toMatchObject({ status: 'requested', change_id: expect.any(String) });
    const id = String(asked.change_id);

    // In the channel, as the agent's, with the exact request; nothing is sent until a person decides.
    const request = channelMessages()
      .filter({ hasText: /agent laptop for @Otto/ })
      .last();
    await expectText(request, /POST \/virtual_machines\/42\/reboot\.json/);
    expect((await call(client, 'change_status', { change_id: id })).status).toBe('requested');
    await page.screenshot({ path: join(SCREENSHOTS, 'agent-request.png') });

    // Otto, its owner, may approve it (power_reboot is not in VS_APPROVALS here).
    await request.getByRole('button', { name: 'Approve' }).click();
    const confirm = page.getByRole('dialog', { name: /^Approve/ });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await confirm.waitFor({ state: 'hidden' });

    let status = '';
    for (let i = 0; i < 60 && status !== 'done'; i++) {
      status = String((await call(client, 'change_status', { change_id: id })).status);
      if (status !== 'done') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe('done');
  } finally {
    await client.close();
  }
});
