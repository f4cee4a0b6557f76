/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { spawnBot, type SpawnedBot } from '../helpers/spawned-bot';

// What every browser test starts with: the bot as `npm start` starts it with no Slack variable (local mode), in a
// folder of its own (local mode keeps its store under ./data/local-mode/ of where it runs), and Debian's chromium,
// headless, on its page; both stopped after the file. People are found on the page the way a person finds them: by
// role and accessible name, never by CSS class.

/**
 * Screenshots are taken on every run (a page that cannot be drawn fails here too), but only `npm run screenshots`
 * writes them over docs/screenshots: a test run leaves the tree as it found it.
 */
export const SCREENSHOTS =
  process.env.VS_WRITE_SCREENSHOTS === '1' ? join(__dirname, '..', '..', 'docs', 'screenshots') : join(tmpdir(), 'vs-chatops-screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface LocalPage {
  readonly bot: SpawnedBot;
  readonly page: Page;
  /** For a second page of the same bot (another person's window). */
  readonly browser: Browser;
}

/**
 * Starts the local bot with `env` and a browser on its page before the file's tests (a `beforeAll` of the file, so
 * the file's own `beforeAll`s declared after it see both), and stops them after. `timeoutMs`: the page's default wait.
 */
export function useLocalPage(env: Record<string, string>, o: { viewport?: { width: number; height: number }; timeoutMs?: number } = {}): LocalPage {
  let bot: SpawnedBot | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vs-chatops-browser-'));
    mkdirSync(SCREENSHOTS, { recursive: true });
    bot = await spawnBot(env, { cwd: dir });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await browser.newPage({ viewport: o.viewport ?? { width: 1200, height: 800 } });
    if (o.timeoutMs !== undefined) page.setDefaultTimeout(o.timeoutMs);
    await page.goto(`http://127.0.0.1:${bot.port}/`);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });
  afterAll(async () => {
    await browser?.close();
    await bot?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return {
    get bot() {
      if (!bot) throw new Error('the local bot is started in beforeAll');
      return bot;
    },
    get page() {
      if (!page) throw new Error('the page is opened in beforeAll');
      return page;
    },
    get browser() {
      if (!browser) throw new Error('the browser is launched in beforeAll');
      return browser;
    },
  };
}

/** Acts as one of the page's make-believe people (the Person menu), found by a pattern of their name. */
export async function actAs(page: Page, person: RegExp): Promise<void> {
  const select = page.getByLabel('Person');
  const option = (await select.locator('option').allTextContents()).find((t) => person.test(t));
  if (!option) throw new Error(`no person ${person}`);
  await select.selectOption({ label: option });
}
