/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser; DEVELOPERS.md).
 * Screenshots go to test-results/screenshots/ as test artifacts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './cli.js';
import { consoleRequest, withToken } from './console-client.js';
import type { TestAgent } from './test-agent.js';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium (.ci/run does it)`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Signs `page` in to the agent's console as an operator does — a one-time login link asked for
 * with the console token — and waits for the Overview.
 */
export async function signInConsole(page: Page, agent: TestAgent): Promise<void> {
  const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
  if (link.status !== 201) throw new Error(`no login link: ${link.status} ${link.text}`);
  await page.goto(String(link.json?.['url']));
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
}
