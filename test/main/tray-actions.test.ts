/** What the tray menu items do, against a real running agent. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAgent } from '../helpers/test-agent.js';
import { silentLogger } from '../../agent/log/logger.js';
import { statusSourceFor, type AgentStatusSource } from '../../main/agent-status.js';
import type { StartAtLogin } from '../../main/login-item.js';
import type { NotificationText } from '../../main/notifications.js';
import { trayActionRunner, type TrayActionDeps } from '../../main/tray-actions.js';
import { startTestAgent } from '../helpers/test-agent.js';

let agent: TestAgent;
beforeAll(async () => {
  agent = await startTestAgent();
});
afterAll(() => agent.stop());

function harness(overrides: Partial<TrayActionDeps> = {}) {
  const clipboard: string[] = [];
  const opened: string[] = [];
  const notes: NotificationText[] = [];
  const events: string[] = [];
  let loginEnabled: boolean | null = false;
  const loginItem: StartAtLogin = {
    isEnabled: () => loginEnabled,
    setEnabled: (on) => (loginEnabled = on),
  };
  const deps: TrayActionDeps = {
    agent: () => agent,
    status: () => statusSourceFor(agent),
    retryStart: async () => events.push('retry'),
    openConsole: async () => (events.push('console'), true),
    clipboard: { writeText: (t) => clipboard.push(t) },
    shell: { openPath: async (p) => (opened.push(p), '') },
    loginItem,
    logFolder: agent.paths.logs,
    quit: () => events.push('quit'),
    notify: (n) => notes.push(n),
    refresh: () => events.push('refresh'),
    log: silentLogger,
    ...overrides,
  };
  return { run: trayActionRunner(deps), clipboard, opened, notes, events, login: () => loginEnabled };
}

describe('tray actions', () => {
  it("Copy API URL and Copy certificate fingerprint put the running agent's values on the clipboard", async () => {
    const h = harness();
    await h.run('copy-api-url');
    await h.run('copy-fingerprint');
    expect(h.clipboard).toEqual([agent.urls().apiUrl, agent.identity.fingerprint256]);
    expect(h.clipboard[0]).toBe(`https://127.0.0.1:${agent.ports.api}`);
    expect(h.notes).toEqual([]);
  });

  it('Open log folder creates the folder if needed and opens it', async () => {
    const h = harness();
    fs.rmSync(agent.paths.logs, { recursive: true, force: true });
    await h.run('open-log-folder');
    expect(h.opened).toEqual([agent.paths.logs]);
    expect(fs.statSync(agent.paths.logs).isDirectory()).toBe(true);
    expect(path.dirname(agent.paths.logs)).toBe(agent.dataDir);
  });

  it('reports a folder the desktop cannot open', async () => {
    const h = harness({ shell: { openPath: async () => 'No application is registered for folders' } });
    await h.run('open-log-folder');
    expect(h.notes).toEqual([
      expect.objectContaining({
        title: 'The log folder could not be opened',
        body: 'No application is registered for folders',
      }),
    ]);
  });

  it('Start at login flips the setting', async () => {
    const h = harness();
    await h.run('toggle-open-at-login');
    expect(h.login()).toBe(true);
    await h.run('toggle-open-at-login');
    expect(h.login()).toBe(false);
  });

  it('Pause on an agent that cannot pause says so instead of pretending', async () => {
    const h = harness({ status: () => statusSourceFor({}) });
    await h.run('pause');
    expect(h.notes[0]).toMatchObject({
      title: 'Monitoring could not be paused',
      body: expect.stringMatching(/cannot pause/),
    });
  });

  it('Pause and Resume pause and resume the real agent', async () => {
    const h = harness();
    await h.run('pause');
    expect(agent.monitoring.paused).toBe(true);
    expect(statusSourceFor(agent).state).toBe('paused');
    await h.run('resume');
    expect(agent.monitoring.paused).toBe(false);
    expect(h.notes).toEqual([]);
  });

  it('Pause and Resume drive a monitoring capability', async () => {
    let paused = false;
    const status: AgentStatusSource = statusSourceFor({
      monitoring: {
        get paused() {
          return paused;
        },
        pause: async () => void (paused = true),
        resume: async () => void (paused = false),
      },
    });
    const h = harness({ status: () => status });
    await h.run('pause');
    expect(status.state).toBe('paused');
    await h.run('resume');
    expect(status.state).toBe('running');
  });

  it('copy actions need a running agent', async () => {
    const h = harness({ agent: () => null });
    await h.run('copy-api-url');
    expect(h.clipboard).toEqual([]);
    expect(h.notes[0]?.body).toBe('the agent is not running');
  });

  it('Open console, Start again and Quit reach their targets; every action refreshes the tray', async () => {
    const h = harness();
    await h.run('open-console');
    await h.run('retry-start');
    await h.run('quit');
    expect(h.events).toEqual(['console', 'refresh', 'retry', 'refresh', 'quit', 'refresh']);
  });
});
