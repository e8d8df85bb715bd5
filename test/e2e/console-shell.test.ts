/** The console web app is served by the agent and renders in a real browser. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestAgent } from '../helpers/test-agent.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { launchChromium, screenshot } from '../helpers/browser.js';
import { consoleRequest, withToken } from '../helpers/console-client.js';
import { ensureRendererBuilt } from '../helpers/renderer-build.js';

describe('console web app', () => {
  let agent: TestAgent;
  let browser: Browser;

  beforeAll(async () => {
    ensureRendererBuilt();
    agent = await startTestAgent();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.stop();
  });

  it('loads from the console listener with a strict CSP and shows where clients connect', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    // Log in the way an operator does: a one-time link from a holder of the console token.
    const link = await consoleRequest(agent, { method: 'POST', path: '/api/login-links', headers: withToken(agent) });
    expect(link.status).toBe(201);
    const response = await page.goto(String(link.json?.['url']));
    expect(response?.status()).toBe(200);
    expect(new URL(page.url()).search).toBe(''); // the code does not stay in the address bar
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expect.poll(() => page.textContent('body')).toContain(agent.identity.fingerprint256);
    await screenshot(page, 'console-shell');
    expect(errors).toEqual([]);
  });

  it('serves index.html for app routes and 404 for missing assets', async () => {
    const route = await fetch(new URL('/applications', agent.urls().consoleUrl));
    expect(route.status).toBe(200);
    expect(await route.text()).toContain('<div id="app">');
    const asset = await fetch(new URL('/assets/missing.js', agent.urls().consoleUrl));
    expect(asset.status).toBe(404);
  });
});
