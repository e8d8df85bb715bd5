/**
 * Activity at a glance in Debian's Chromium against a real agent, at 800×600 (docs/console.md):
 * the Overview's chart shows the records the test wrote, each bucket's count equal to the
 * console search's; clicking a bar opens the search of that bucket; the chart and the top-10
 * lists work with the keyboard alone. Screenshots go to test-results/screenshots/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { NewActivityRecord } from '../../shared/activity-record.js';
import type { ActivitySearchResponse } from '../../shared/console-api.js';
import { startTestAgent, type TestAgent } from '../helpers/test-agent.js';
import { launchChromium, signInConsole, screenshot } from '../helpers/browser.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';

const QUARTER = 900_000;
let agent: TestAgent;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const now = Date.now();
/** Two buckets of the last 24 hours with records. */
const recent = now - 2 * QUARTER - ((now - 2 * QUARTER) % QUARTER);
const earlier = now - 20 * QUARTER - ((now - 20 * QUARTER) % QUARTER);

function records(n: number, who: string, action: string, whenMs: number): NewActivityRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    Who: who,
    Action: action,
    What: `/home/${who.split('\\')[1]}/Projects/file-${action}-${whenMs}-${i}.txt`,
    When: new Date(whenMs + i * 1000).toISOString(),
    Where: 'ws1',
    ObjectType: 'File',
    DataSource: 'File System',
    DetailList: [{ PropertyName: 'Process', Message: '/usr/bin/rsync' }],
  }));
}

async function searchCount(from: number, to: number): Promise<number> {
  const response = await consoleRequest(agent, {
    method: 'POST',
    path: '/api/activity/search',
    headers: withToken(agent),
    body: { filterList: { When: { From: new Date(from).toISOString(), To: new Date(to).toISOString() } }, count: 500 },
  });
  return (JSON.parse(response.text) as ActivitySearchResponse).records.length;
}

const focused = () =>
  page.evaluate(() => ({
    label: document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '',
    start: document.activeElement?.getAttribute('data-start') ?? '',
  }));

/** Presses Tab until the focused element passes `test` (at most `max` times). */
async function tabUntil(test: (f: { label: string; start: string }) => boolean, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (test(await focused())) return;
  }
  throw new Error('the element never got the focus');
}

async function openOverview(): Promise<void> {
  await page.goto(new URL('/', page.url()).href);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  await page.locator(`rect.bar-hit[data-start="${new Date(recent).toISOString()}"]`).waitFor({ state: 'attached' });
}

beforeAll(async () => {
  ensureRendererBuilt();
  agent = await startTestAgent();
  agent.store.insertBatch([
    ...records(30, 'HOST\\alice', 'Removed', recent),
    ...records(12, 'HOST\\bob', 'Added', recent),
    ...records(7, 'HOST\\bob', 'Modified', earlier),
  ]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInConsole(page, agent);
});

afterAll(async () => {
  await browser?.close();
  await agent?.stop();
});

describe('activity charts in the console', () => {
  it('show the records the test made, each bucket counted as the search counts it', async () => {
    await openOverview();
    const glance = page.getByRole('region', { name: 'Activity at a glance' });
    await glance.scrollIntoViewIfNeeded();
    await screenshot(page, 'activity-charts-overview');
    for (const [start, expected] of [
      [recent, '42 records (Added 12, Removed 30)'],
      [earlier, '7 records (Modified 7)'],
    ] as const) {
      const bar = page.locator(`rect.bar-hit[data-start="${new Date(start).toISOString()}"]`);
      expect(await bar.getAttribute('aria-label')).toContain(expected);
      expect(await searchCount(start, start + QUARTER)).toBe(Number(expected.split(' ')[0]));
    }
    // The screen readers' table holds the same counts, one row per bucket with records (the
    // agent's own records of its start are in the newest one).
    const rows = glance.locator('table tbody tr');
    expect(await rows.count()).toBeGreaterThanOrEqual(2);
    const headers = await glance.locator('table thead th').allTextContents();
    const recentRow = await rows
      .filter({ hasText: new Date(recent).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) })
      .first()
      .locator('td')
      .allTextContents();
    const cell = (action: string): string => recentRow[headers.indexOf(action) - 1] ?? '';
    expect([cell('Added'), cell('Removed'), cell('Total')]).toEqual(['12', '30', '42']);
    expect(await glance.getByRole('list', { name: 'Actions' }).textContent()).toMatch(/^AddedModifiedRemoved/);
    const actors = glance.getByRole('region', { name: 'Top actors' });
    expect((await actors.getByRole('listitem').allTextContents()).slice(0, 2)).toEqual([
      'HOST\\alice30',
      'HOST\\bob19',
    ]);
    expect(await glance.getByRole('region', { name: 'Top processes' }).textContent()).toContain('/usr/bin/rsync49');
    expect(await glance.getByRole('region', { name: 'Top folders' }).textContent()).toContain('/home/alice/Projects30');
  });

  it('opens the search of a bar when it is clicked', async () => {
    await openOverview();
    await page.locator(`rect.bar-hit[data-start="${new Date(recent).toISOString()}"]`).click();
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Page 1: 42 records' }).waitFor();
    expect(new URL(page.url()).searchParams.get('from')).toBe(new Date(recent).toISOString());
    expect(await page.getByRole('tab', { name: 'Search' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByLabel('Time', { exact: true }).inputValue()).toBe('custom');
    await screenshot(page, 'activity-charts-bar-search');
  });

  it('works with the keyboard alone: a bar, then a top actor', async () => {
    await openOverview();
    // One tab stop for the chart, on the newest bar with records; the arrows move from bar to bar.
    await tabUntil((f) => f.start !== '');
    const first = Date.parse((await focused()).start);
    expect(first).toBeGreaterThanOrEqual(recent);
    await page.keyboard.press('ArrowLeft');
    expect((await focused()).start).toBe(new Date(first - QUARTER).toISOString());
    for (let at = first - QUARTER; at > earlier; at -= QUARTER) await page.keyboard.press('ArrowLeft');
    const bar = await focused();
    expect(bar.start).toBe(new Date(earlier).toISOString());
    expect(bar.label).toContain('7 records (Modified 7)');
    await screenshot(page, 'activity-charts-keyboard-focus');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Page 1: 7 records' }).waitFor();

    await openOverview();
    await tabUntil((f) => f.label.trim() === 'HOST\\alice');
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Page 1: 30 records' }).waitFor();
    expect(await page.getByLabel('Who', { exact: true }).inputValue()).toBe('HOST\\alice');
    await screenshot(page, 'activity-charts-actor-search');
    expect(pageErrors).toEqual([]);
  });
});
