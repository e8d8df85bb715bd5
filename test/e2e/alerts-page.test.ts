/**
 * The Alerts page and the Overview's banner in Debian's Chromium against a real agent
 * (docs/alerts.md): an alert raised by 600 removals shows on the Overview until acknowledged,
 * with the keyboard only; the rule form names the wrong field before sending; rules are added,
 * switched off and removed. Screenshots go to test-results/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { formatWhen } from '../../shared/activity-record.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { launchChromium, signInConsole, screenshot } from '../helpers/browser.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';

let agent: TestAgent;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

async function removals(who: string, n: number): Promise<void> {
  const now = Date.now();
  await agent.activity.pipeline.write(
    Array.from({ length: n }, (_, i) => ({
      record: {
        Who: who,
        Action: 'Removed',
        What: `/home/${who.split('\\')[1]}/Documents/report-${i}.docx`,
        When: formatWhen(new Date(now)),
        Where: 'ws1',
        ObjectType: 'File',
        DataSource: 'File System',
      },
      timeMs: now,
    })),
  );
  await agent.activity.alerts.flush();
}

/** Presses Tab until `name`'s button has the focus (at most `max` times). */
async function tabTo(name: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(
      () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '',
    );
    if (focused.trim() === name) return;
  }
  throw new Error(`"${name}" never got the focus`);
}

const focusedText = () =>
  page.evaluate(() => ({
    label: document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '',
    tag: document.activeElement?.tagName ?? '',
  }));

beforeAll(async () => {
  ensureRendererBuilt();
  agent = await startTestAgent();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInConsole(page, agent);
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
});

describe('alerts in the console', () => {
  it('shows a fired alert on the Overview until it is acknowledged, with the keyboard only', async () => {
    await removals('HOST\\mallory', 600);
    await removals('HOST\\eve', 501);
    await page.reload();
    const banner = page.getByRole('region', { name: '2 unacknowledged alerts' });
    await banner.waitFor();
    const text = (await banner.textContent()) ?? '';
    expect(text).toContain('Mass deletion');
    expect(text).toContain('HOST\\mallory: 501 records (Removed) within 60 s');
    await screenshot(page, 'alerts-overview-banner');

    await tabTo('Acknowledge Mass deletion by HOST\\eve'); // newest first
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '1 unacknowledged alert' }).waitFor();
    // Focus moved to the next alert's button, not back to the top of the page.
    expect(await focusedText()).toEqual({ label: 'Acknowledge Mass deletion by HOST\\mallory', tag: 'BUTTON' });
    await page.keyboard.press('Space');
    await page.getByRole('heading', { name: 'No unacknowledged alert' }).waitFor();
    expect((await focusedText()).label).toContain('is acknowledged');
    expect((await consoleRequest(agent, { path: '/api/alerts', headers: withToken(agent) })).json).toEqual([]);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(await page.getByRole('region', { name: /unacknowledged alert/ }).count()).toBe(0);
  });

  it('manages rules on the Alerts page: the form names the wrong field; add, disable, remove', async () => {
    await removals('HOST\\trudy', 501);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Alerts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Alerts' }).waitFor();
    await page.getByRole('heading', { name: '1 unacknowledged alert' }).waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(3); // header and the two default rules
    await screenshot(page, 'alerts-page');

    await page.getByRole('button', { name: 'Add rule' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add an alert rule' });
    await dialog.getByLabel('Name', { exact: true }).fill('Mass renames');
    await dialog.getByLabel('Removed', { exact: true }).uncheck();
    await dialog.getByLabel('Fire when more than (records)', { exact: true }).fill('0');
    await dialog.getByRole('button', { name: 'Add rule' }).click();
    await expect.poll(() => dialog.locator('#rule-actions-error').textContent()).toBe('choose at least one action');
    expect(await dialog.locator('#rule-threshold-error').textContent()).toBe('the threshold must be at least 1');
    expect(await dialog.getByLabel('Fire when more than (records)', { exact: true }).getAttribute('aria-invalid')).toBe(
      'true',
    );
    await screenshot(page, 'alerts-rule-form-errors');
    await dialog.getByLabel('Renamed', { exact: true }).check();
    await dialog.getByLabel('Fire when more than (records)', { exact: true }).fill('200');
    await dialog.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('status').filter({ hasText: '“Mass renames” is saved.' }).waitFor();
    expect(agent.settings.current.alerts.map((r) => r.name)).toEqual([
      'Mass deletion',
      'Mass modification',
      'Mass renames',
    ]);

    // A name already taken: the agent's answer shows under the Name field.
    await page.getByRole('button', { name: 'Edit Mass renames' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit “Mass renames”' });
    await edit.getByLabel('Name', { exact: true }).fill('mass deletion');
    await edit.getByRole('button', { name: 'Save rule' }).click();
    await expect
      .poll(() => edit.locator('#rule-name-error').textContent())
      .toBe('another rule is already named "Mass deletion"');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Disable Mass renames' }).click();
    await page.getByRole('button', { name: 'Enable Mass renames' }).waitFor();
    expect(agent.settings.current.alerts.find((r) => r.name === 'Mass renames')?.enabled).toBe(false);
    await page.getByRole('button', { name: 'Remove Mass renames' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove rule' }).click();
    await page.getByRole('status').filter({ hasText: '“Mass renames” is removed.' }).waitFor();
    expect(agent.settings.current.alerts.map((r) => r.name)).toEqual(['Mass deletion', 'Mass modification']);

    await page.getByRole('button', { name: 'Acknowledge Mass deletion by HOST\\trudy' }).click();
    await page.getByRole('heading', { name: 'No unacknowledged alert' }).waitFor();
    await screenshot(page, 'alerts-page-acknowledged');
    await page.setViewportSize({ width: 800, height: 600 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, 'the Alerts page is wider than 800 px').toBeLessThanOrEqual(0);
    await screenshot(page, 'alerts-page-800x600');
    expect(pageErrors).toEqual([]);
  });
});
