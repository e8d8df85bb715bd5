import fs from 'node:fs';
import path from 'node:path';
import { startAgent } from '../agent/agent.js';
import { silentLogger } from '../agent/log/logger.js';
import { chromium } from 'playwright-core';
const launchChromium = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless','--no-sandbox','--disable-gpu'] });
import os from 'node:os';

const data = fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'home-'));
const watched = path.join(home, 'Documents');
fs.mkdirSync(watched);
const agent = await startAgent({ dataDir: data, ports: { api: 0, audit: 0, console: 0 }, log: silentLogger, firstRunHome: home, version: '0.1.0',
  activity: { sourceTimings: { settleMs: 50, maxDelayMs: 300, sweepMs: 300, retryMs: 500 } } });
for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(watched, `report-${i}.txt`), 'x');
fs.writeFileSync(path.join(watched, '<img src=x onerror=alert(1)>.txt'), 'x');
fs.writeFileSync(path.join(watched, 'invoice\u202Etxt.exe'), 'x');
await agent.auth.clients.add({ name: 'SIEM collector', permissions: ['read', 'accessActivityData'] }, 'cli');
await agent.audit.users.add({ name: 'CORP\\splunk', roles: ['reader'], password: 'long password' });
await new Promise((r) => setTimeout(r, 1500));
const browser = await launchChromium();
const sizes = (process.env.SIZES ?? '1280x800,800x600').split(',');
const pages = (process.env.PAGES ?? '/,/applications,/audit-users,/log-files,/activity,/settings').split(',');
for (const size of sizes) {
  const [w, h] = size.split('x').map(Number);
  const context = await browser.newContext({ viewport: { width: w!, height: h! } });
  const page = await context.newPage();
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  page.on('console', (m) => m.type() === 'error' && console.log('console', m.text()));
  page.on('dialog', (d) => { console.log('DIALOG!', d.message()); void d.dismiss(); });
  const res = await fetch(new URL('/api/login-links', agent.urls().consoleUrl), { method: 'POST', headers: { Authorization: `Bearer ${fs.readFileSync(agent.paths.consoleToken, 'utf8').trim()}` } });
  const { url } = (await res.json()) as { url: string };
  await page.goto(url);
  for (const p of pages) {
    await page.goto(new URL(p, agent.urls().consoleUrl).href);
    await page.waitForTimeout(900);
    if (p === '/log-files' && process.env.VIEW) { await page.getByRole('button', { name: /^View / }).first().click(); await page.waitForTimeout(800); }
    const name = `.scratch/${(p === '/' ? 'overview' : p.slice(1))}-${size}.png`;
    await page.screenshot({ path: name, fullPage: false });
  }
  await context.close();
}
await browser.close();
await agent.stop();
