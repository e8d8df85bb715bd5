/**
 * The console's Domains page in Chromium against a real slapd: add a domain with its password,
 * see its status once a Changes policy exists, test the connection, disable it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, signInConsole, screenshot } from '../helpers/browser.js';
import { changesPolicyXml } from '../helpers/directory.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { READER_DN, READER_PASSWORD, SUFFIX, SlapdServer, slapdMissing } from '../helpers/slapd-server.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';

const missing = slapdMissing();

describe.skipIf(missing !== null)('console Domains page', () => {
  let agent: TestAgent;
  let browser: Browser;
  let slapd: SlapdServer;
  let page: Page;

  beforeAll(async () => {
    ensureRendererBuilt();
    slapd = await SlapdServer.create();
    agent = await startTestAgent();
    browser = await launchChromium();
    page = await browser.newPage();
    await signInConsole(page, agent);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
    await slapd?.dispose();
  });

  it('adds a domain, shows its status and policies, tests the connection and disables it', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByLabel('Domain name').fill('example.test');
    await page.getByLabel('LDAP server').fill(slapd.url);
    await page.getByLabel('Bind DN').fill(READER_DN);
    await page.getByLabel('Password').fill(READER_PASSWORD);
    await page.getByLabel('Base DN').fill(SUFFIX);
    await page.getByLabel('Polling interval (seconds)').fill('1');
    await page.getByLabel('TLS on ldap://').selectOption('none');
    await page.getByRole('dialog').getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('status').filter({ hasText: 'example.test is saved.' }).waitFor();
    expect(await page.textContent('body')).not.toContain(READER_PASSWORD);

    const domain = agent.resources.domains.list()[0]!;
    await agent.resources.policies.create(domain.id, { xml: changesPolicyXml('People', '') }, 'test');
    await agent.activity.directory.ready();
    await page.reload();
    const row = page.getByRole('row', { name: /example\.test/ });
    await row.getByText('OK: Monitoring 1 Changes policy').waitFor();
    expect(await row.textContent()).toContain('People');

    await row.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('status').filter({ hasText: 'example.test: Connected to LDAP Directory 127.0.0.1' }).waitFor();
    await screenshot(page, 'console-domains');

    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'example.test is disabled.' }).waitFor();
    expect(agent.resources.domains.find(domain.id)?.isEnabled).toBe(false);
  }, 60_000);
});
