/**
 * The console end to end, in Debian's Chromium against a real agent: sign in with a
 * one-time link; authorize an application and copy its credentials; use them on the agent API;
 * change its permissions and see the API's answer change; revoke it and see its token refused;
 * open today's log file and follow new lines; see a file created in a watched folder appear in
 * the live feed, its attacker-chosen name shown as text (docs/security.md, C08); add a folder to
 * watch and see its new file in the live feed, switch the host and its output off and on. Screenshots of
 * every page, at 1280×800 and 800×600, go to test-results/screenshots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { launchChromium, screenshot, signInConsole } from '../helpers/browser.js';
import { apiRequest, bearer, tokenRequest } from '../helpers/api-client.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { monitorFolders, TEST_TIMINGS } from '../helpers/activity.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';
import { AuditClient } from '../helpers/audit-client.js';

const XSS_NAME = '<img src=x onerror=alert(1)>';

let agent: TestAgent;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watched: string;
const dialogs: string[] = [];
const pageErrors: string[] = [];

function watch(target: Page): void {
  // Any JavaScript dialog means activity data ran as code: the XSS check fails the test.
  target.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  target.on('pageerror', (error) => pageErrors.push(error.message));
}

async function go(target: Page, label: string): Promise<void> {
  await target.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label }).click();
  await target.getByRole('heading', { level: 1, name: label }).waitFor();
}

beforeAll(async () => {
  ensureRendererBuilt();
  agent = await startTestAgent({ activity: TEST_TIMINGS, version: '0.1.0' });
  watched = makeTempDir('vigil-watched-');
  await monitorFolders(agent, [watched]);
  fs.writeFileSync(path.join(watched, 'budget.xlsx'), 'x'); // a first line in today's log file
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const origin = new URL(agent.urls().consoleUrl).origin;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  watch(page);
  await signInConsole(page, agent);
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
});

describe('console end to end', () => {
  it('shows the overview: health, where clients connect, the fingerprint, what is monitored', async () => {
    await expect.poll(() => page.textContent('main')).toContain(agent.identity.fingerprint256);
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('Vigil is recording file activity');
    expect(main).toContain(agent.urls().apiUrl);
    expect(main).toContain(watched);
    await page.getByRole('button', { name: 'Copy Certificate SHA-256' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(agent.identity.fingerprint256);
    await screenshot(page, 'console-overview');
  });

  it('authorizes an application, whose copied credentials get a token; permissions and revocation take effect', async () => {
    await go(page, 'Applications');
    // Open the form and fill it with the keyboard only.
    await page.getByRole('button', { name: 'Authorize application' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Authorize an application' });
    await dialog.waitFor();
    await page.keyboard.type('SIEM collector');
    await page.keyboard.press('Tab'); // Access activity data
    await page.keyboard.press('Tab'); // Read
    await page.keyboard.press('Space');
    expect(await dialog.getByRole('checkbox', { name: 'Read' }).isChecked()).toBe(true);
    await screenshot(page, 'console-authorize-application');
    await dialog.getByRole('button', { name: 'Authorize' }).focus();
    await page.keyboard.press('Enter');

    const shown = page.getByRole('dialog', { name: '“SIEM collector” is authorized' });
    await shown.waitFor();
    expect(await shown.textContent()).toMatch(/shown only this once/);
    await shown.getByRole('button', { name: 'Copy client ID' }).click();
    const clientId = await page.evaluate(() => navigator.clipboard.readText());
    await shown.getByRole('button', { name: 'Copy client secret' }).click();
    const clientSecret = await page.evaluate(() => navigator.clipboard.readText());
    expect(clientId).toMatch(/^[0-9a-f]{32}$/);
    expect(clientSecret).toMatch(/^vgl_cs_/);
    await screenshot(page, 'console-application-credentials');
    await shown.getByRole('button', { name: 'I have copied the secret' }).click();
    await shown.waitFor({ state: 'detached' });
    // Shown once: a reload of the page (or its cached copy) does not bring the secret back.
    await page.reload();
    await page.getByRole('row', { name: /SIEM collector/ }).waitFor();
    expect(await page.content()).not.toContain(clientSecret);

    // The copied credentials work on the agent API.
    const token = await tokenRequest(agent, {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    });
    expect(token.status, token.text).toBe(200);
    const accessToken = String(token.json?.['access_token']);
    const agents = (): ReturnType<typeof apiRequest> =>
      apiRequest(agent, { path: '/api/v1/agents', headers: bearer(accessToken) });
    expect((await agents()).status).toBe(200);

    // Read → Modify host: the same token is now refused on agents.
    await page.getByRole('button', { name: 'Change permissions of SIEM collector' }).click();
    const permissions = page.getByRole('dialog', { name: 'Permissions of “SIEM collector”' });
    await permissions.getByRole('checkbox', { name: 'Read' }).uncheck();
    await permissions.getByRole('checkbox', { name: 'Modify host' }).check();
    await permissions.getByRole('button', { name: 'Save permissions' }).click();
    await page.getByRole('status').filter({ hasText: 'permissions of “SIEM collector” are saved' }).waitFor();
    await expect.poll(() => page.getByRole('row', { name: /SIEM collector/ }).textContent()).toContain('Modify host');
    const refused = await agents();
    expect(refused.status).toBe(401);
    expect(refused.json?.['error']).toBe('insufficient_permission');
    await screenshot(page, 'console-applications');

    // Revoke, after confirming: the token stops working at once.
    await page.getByRole('button', { name: 'Revoke SIEM collector' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Revoke “SIEM collector”?' });
    // Focus moves into the confirmation, onto its safe choice.
    await expect
      .poll(() =>
        confirm.evaluate((el) => (el.contains(document.activeElement) ? document.activeElement?.textContent : null)),
      )
      .toBe('Cancel');
    await confirm.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByText('No application is authorized yet.').waitFor();
    const revoked = await agents();
    expect(revoked.status).toBe(401);
    expect(revoked.json?.['error']).toBe('invalid_token');
  });

  it("opens today's log file and follows new lines", async () => {
    await go(page, 'Log files');
    await page.getByRole('button', { name: /^View .*_Log_\d{8}\.tsv$/ }).click();
    const lines = page.getByRole('region', { name: /^Lines of / });
    await expect.poll(() => lines.textContent()).toContain('budget.xlsx');
    await page.getByRole('checkbox', { name: 'Follow new lines' }).check();
    await page.getByRole('status').filter({ hasText: 'Following new lines' }).waitFor();
    fs.writeFileSync(path.join(watched, 'followed-report.docx'), 'x');
    await expect.poll(() => lines.textContent(), { timeout: 15_000 }).toContain('followed-report.docx');
    // The filter keeps only matching lines, searched on the agent.
    await page.getByRole('checkbox', { name: 'Follow new lines' }).uncheck();
    await page.getByLabel('Show only lines containing').fill('BUDGET');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '1 line contains “BUDGET”' }).waitFor();
    expect(await lines.textContent()).not.toContain('followed-report.docx');
    await screenshot(page, 'console-log-viewer');
    await page.getByRole('button', { name: 'Back to the list' }).click();
    await screenshot(page, 'console-log-files');
  });

  it('scrolls a long file with the keyboard: only the lines in view are in the page, each the right one', async () => {
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10).replace(/-/g, '');
    const id = `archive_Log_${day}.tsv`;
    const count = 50_000;
    fs.writeFileSync(
      path.join(agent.paths.logs, id),
      Array.from({ length: count }, (_, i) => `2026-11-20T00:00:00Z\tline number ${i + 1}\n`).join(''),
    );
    await go(page, 'Log files');
    await page.getByRole('button', { name: `View ${id}` }).click();
    await page.getByRole('status').filter({ hasText: '50,000 lines' }).waitFor();
    const region = page.getByRole('region', { name: `Lines of ${id}` });
    expect(await region.locator('.log-line').count()).toBeLessThan(100);
    await region.focus();
    await page.keyboard.press('End');
    await expect.poll(() => region.textContent()).toContain(`line number ${count}`);
    // Every row shows the line its number says.
    const rows = (): Promise<Array<[string, string]>> =>
      region
        .locator('.log-line')
        .evaluateAll((lines) =>
          lines.map((l) => [
            l.querySelector('.log-number')?.textContent ?? '',
            l.querySelector('.log-text')?.textContent ?? '',
          ]),
        );
    const shown = async (): Promise<Array<[string, string]>> => (await rows()).filter(([, text]) => text !== '…');
    expect((await shown()).length).toBeGreaterThan(10);
    for (const [n, text] of await shown()) expect(text).toBe(`2026-11-20T00:00:00Z\tline number ${n}`);
    await region.evaluate((el) => (el.scrollTop = el.scrollHeight / 2));
    await expect.poll(async () => Number((await shown())[0]?.[0] ?? 0)).toBeGreaterThan(24_000);
    for (const [n, text] of await shown()) expect(text).toBe(`2026-11-20T00:00:00Z\tline number ${n}`);
    await page.keyboard.press('Home');
    await expect.poll(async () => (await shown())[0]).toEqual(['1', '2026-11-20T00:00:00Z\tline number 1']);
    await page.getByRole('button', { name: 'Back to the list' }).click();
  });

  it('shows a new file in the live feed, its name as text: no markup, no script', async () => {
    await go(page, 'Activity');
    await page.getByText('Live: new records appear').waitFor();
    fs.writeFileSync(path.join(watched, `${XSS_NAME}.txt`), 'x');
    fs.writeFileSync(path.join(watched, 'invoice\u202Etxt.exe'), 'x');
    const feed = page.getByRole('table', { name: 'Live activity, newest first' });
    await expect.poll(() => feed.textContent(), { timeout: 15_000 }).toContain(`${XSS_NAME}.txt`);
    await expect.poll(() => feed.textContent(), { timeout: 15_000 }).toContain('invoice⟨U+202E⟩txt.exe');
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await screenshot(page, 'console-activity-feed');

    await page.getByRole('tab', { name: 'Search' }).click();
    await page.getByLabel('Path (What)', { exact: true }).fill('onerror');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByRole('table', { name: 'Search results, newest first' });
    await expect.poll(() => results.textContent()).toContain(`${XSS_NAME}.txt`);
    await page.getByRole('button', { name: new RegExp(`${XSS_NAME.slice(1, 4)}.*\\.txt`) }).click();
    await expect.poll(() => results.textContent()).toContain('RID');
    expect(await page.locator('main img').count()).toBe(0);
    expect(dialogs).toEqual([]);
    await screenshot(page, 'console-activity-search');
  });

  it('adds a folder to watch whose new file shows in the live feed; disables and enables the host', async () => {
    const host = agent.settings.current.hosts[0]!;
    await go(page, 'Overview');
    const article = page.getByRole('article', { name: `Host ${host.host}` });
    const input = article.getByLabel(`Folder to watch on ${host.host}`);
    // A relative path is refused in words, at the field.
    await input.fill('projects/reports');
    await article.getByRole('button', { name: 'Add folder' }).click();
    await article.getByText('path must be an absolute path').waitFor();
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'console-add-folder-invalid');

    // With the keyboard: type the folder, Enter submits.
    const added = makeTempDir('vigil-added-in-ui-');
    await input.fill('');
    await input.focus();
    await page.keyboard.type(added);
    await page.keyboard.press('Enter');
    await article
      .getByRole('status')
      .filter({ hasText: `Now watching ${added}.` })
      .waitFor();
    await article.getByRole('button', { name: `Remove folder ${added}` }).waitFor();
    expect(agent.settings.current.hosts[0]!.includePaths).toEqual([watched, added]);
    await screenshot(page, 'console-folder-added');

    await go(page, 'Activity');
    await page.getByText('Live: new records appear').waitFor();
    await agent.activity.monitor.ready();
    fs.writeFileSync(path.join(added, 'quarterly-plan.odt'), 'x');
    const feed = page.getByRole('table', { name: 'Live activity, newest first' });
    await expect.poll(() => feed.textContent(), { timeout: 15_000 }).toContain(path.join(added, 'quarterly-plan.odt'));

    // Off and on again: the button says what it will do, the settings follow.
    await go(page, 'Overview');
    await article.getByRole('button', { name: `Disable host ${host.host}` }).click();
    await article.getByRole('button', { name: `Enable host ${host.host}` }).waitFor();
    expect(agent.settings.current.hosts[0]!.isEnabled).toBe(false);
    await expect.poll(() => article.textContent()).toContain('disabled');
    await screenshot(page, 'console-host-disabled');
    await article.getByRole('button', { name: `Enable host ${host.host}` }).click();
    await article.getByRole('button', { name: `Disable host ${host.host}` }).waitFor();
    expect(agent.settings.current.hosts[0]!.isEnabled).toBe(true);

    // The output's switch, and removing the folder again.
    const output = agent.settings.current.outputs[0]!;
    await article.getByRole('button', { name: /^Disable output / }).click();
    await article.getByRole('button', { name: /^Enable output / }).waitFor();
    expect(agent.settings.current.outputs.find((o) => o.id === output.id)?.isEnabled).toBe(false);
    await article.getByRole('button', { name: /^Enable output / }).click();
    await article.getByRole('button', { name: /^Disable output / }).waitFor();
    expect(agent.settings.current.outputs.find((o) => o.id === output.id)?.isEnabled).toBe(true);
    await article.getByRole('button', { name: `Remove folder ${added}` }).click();
    await article
      .getByRole('status')
      .filter({ hasText: `Stopped watching ${added}.` })
      .waitFor();
    expect(agent.settings.current.hosts[0]!.includePaths).toEqual([watched]);
    expect(pageErrors).toEqual([]);
  });

  it('adds an audit user who can then use the audit API', async () => {
    await go(page, 'Audit users');
    await page.getByRole('button', { name: 'Add user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an audit user' });
    await dialog.getByLabel('User name').fill('CORP\\splunk');
    await dialog.getByLabel('Password', { exact: true }).fill('a long password');
    await dialog.getByLabel('Password again').fill('a different one');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await dialog.getByText('The two passwords differ.').waitFor();
    await dialog.getByLabel('Password again').fill('a long password');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('row', { name: /CORP\\splunk/ }).waitFor();
    expect(agent.audit.users.get('CORP\\splunk')?.roles).toEqual(['reader']);
    const audit = new AuditClient(agent, 'CORP\\splunk:a long password');
    try {
      expect((await audit.request({ path: 'activity_records/enum?count=1' })).status).toBe(200);
    } finally {
      audit.close();
    }
    await screenshot(page, 'console-audit-users');
  });

  it('rejects an invalid CIDR inline and applies a valid allow-list at once', async () => {
    await go(page, 'Settings');
    await page.getByRole('button', { name: 'Add entry' }).click();
    const entry = page.getByLabel('Allow-list entry 3');
    await entry.fill('10.0.0.1/8');
    await page.getByText('has bits set after the /8 prefix; the network is 10.0.0.0/8').waitFor();
    expect(await entry.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Save settings' }).isDisabled()).toBe(true);
    await screenshot(page, 'console-settings-invalid');
    await entry.fill('10.0.0.0/8');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved and applied.' }).waitFor();
    expect(agent.settings.current.allowList).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    expect(agent.allowList.current).toEqual(['127.0.0.1', '::1', '10.0.0.0/8']);
    await screenshot(page, 'console-settings');
  });

  it('is readable at 800×600: every page, nothing wider than the window', async () => {
    // Something in every list, so the narrow tables are seen filled.
    await agent.auth.clients.add({ name: 'Nightly export script', permissions: ['accessActivityData'] }, 'test');
    const small = await context.newPage();
    watch(small);
    await small.setViewportSize({ width: 800, height: 600 });
    await signInConsole(small, agent);
    for (const [label, name] of [
      ['Overview', 'overview'],
      ['Applications', 'applications'],
      ['Audit users', 'audit-users'],
      ['Log files', 'log-files'],
      ['Activity', 'activity'],
      ['Settings', 'settings'],
    ] as const) {
      await go(small, label);
      await small.waitForLoadState('networkidle').catch(() => undefined);
      const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${label} is wider than 800 px`).toBeLessThanOrEqual(0);
      await screenshot(small, `console-${name}-800x600`);
    }
    await small.close();
  });

  it('shows errors in words and never a blank page', async () => {
    const lost = await context.newPage();
    watch(lost);
    // Another browser without a session: the sign-in explanation, not an empty page.
    const stranger = await browser.newContext();
    const strangerPage = await stranger.newPage();
    await strangerPage.goto(new URL('/applications', agent.urls().consoleUrl).href);
    await strangerPage.getByRole('heading', { name: 'Sign in to the Vigil console' }).waitFor();
    expect(await strangerPage.textContent('body')).toContain('vigil console');
    await screenshot(strangerPage, 'console-sign-in');
    await stranger.close();

    await lost.goto(new URL('/no-such-page', agent.urls().consoleUrl).href);
    await lost.getByRole('heading', { name: 'Page not found' }).waitFor();
    // An error from the API is shown as the API's words at the field it concerns.
    await lost.goto(new URL('/audit-users', agent.urls().consoleUrl).href);
    await lost.getByRole('button', { name: 'Add user' }).click();
    const dialog = lost.getByRole('dialog', { name: 'Add an audit user' });
    await dialog.getByLabel('User name').fill('corp\\SPLUNK');
    await dialog.getByLabel('Password', { exact: true }).fill('another long one');
    await dialog.getByLabel('Password again').fill('another long one');
    await dialog.getByRole('button', { name: 'Add user' }).click();
    await dialog.getByText('an audit user named "corp\\SPLUNK" already exists').waitFor();
    await lost.close();
    expect(pageErrors).toEqual([]);
    expect(dialogs).toEqual([]);
  });
});
