/**
 * The console's fleet section (Settings) in Chromium against a real PostgreSQL: an agent that is
 * no member says so; a wrong URL is refused under its field; joining with the password makes the
 * agent a member at once (state, members, the password never shown again); leaving ends it; a
 * wrong password leaves it `refused`, with the server's reason shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signInConsole, screenshot } from '../helpers/browser.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const FAST = { pollMs: 50, heartbeatMs: 500, pacing: { firstDelayMs: 50, maxDelayMs: 300 } };

describe('console fleet section', () => {
  let server: PostgresServer;
  let agent: TestAgent;
  let browser: Browser;
  let page: Page;
  const state = () => page.locator('#fleet-state');

  beforeAll(async () => {
    ensureRendererBuilt();
    server = await startPostgres();
    agent = await startTestAgent({ fleet: FAST });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    await signInConsole(page, agent);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await server?.stop();
  });

  it('joins a fleet with its password, lists this agent as a member, and leaves it', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Settings' }).click();
    await state().filter({ hasText: 'not a fleet member' }).waitFor();

    await page.getByLabel('PostgreSQL URL').fill('mysql://somewhere/db');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.locator('#fleet-database-error').waitFor();
    expect(await page.getByLabel('PostgreSQL URL').getAttribute('aria-invalid')).toBe('true');
    expect(agent.fleet.current()).toBeNull();

    await page.getByLabel('PostgreSQL URL').fill(server.url);
    await page.getByLabel('Password (kept owner-only, never shown again)').fill(server.password);
    await page.getByRole('button', { name: 'Join' }).click();
    await state().filter({ hasText: 'Connected to the fleet database.' }).waitFor({ timeout: 30_000 });
    expect(await state().textContent()).toContain(server.url);
    expect(agent.fleet.current()).not.toBeNull();
    const members = page.getByRole('table', { name: 'Fleet members' });
    await members.getByRole('cell', { name: agent.agentId, exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.textContent('body')).not.toContain(server.password);
    await screenshot(page, 'fleet-settings-member');

    await page.getByRole('button', { name: 'Leave the fleet' }).click();
    await state().filter({ hasText: 'not a fleet member' }).waitFor();
    expect(agent.fleet.current()).toBeNull();
  }, 90_000);

  it('says when the database refuses this agent, and why', async () => {
    await page.getByLabel('PostgreSQL URL').fill(server.url);
    await page.getByLabel('Password (kept owner-only, never shown again)').fill('not-the-password');
    await page.getByRole('button', { name: 'Join' }).click();
    await state().filter({ hasText: 'answers but refuses this agent' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('#fleet-problem').textContent()).toMatch(/password authentication failed/);
    await screenshot(page, 'fleet-settings-refused');
    await page.getByRole('button', { name: 'Leave the fleet' }).click();
    await state().filter({ hasText: 'not a fleet member' }).waitFor();
  }, 60_000);
});
