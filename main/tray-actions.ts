/**
 * What each tray menu item does. Every action reports its own failure (log line and a
 * notification) and then refreshes the tray, so the menu always reflects the outcome.
 */
import fs from 'node:fs/promises';
import type { Logger, RunningAgent } from '../agent/agent.js';
import type { AgentStatusSource } from './agent-status.js';
import type { StartAtLogin } from './login-item.js';
import type { NotificationText } from './notifications.js';
import type { TrayAction } from './tray-model.js';

export interface TrayActionDeps {
  agent(): RunningAgent | null;
  status(): AgentStatusSource | null;
  retryStart(): Promise<unknown>;
  openConsole(): Promise<boolean>;
  clipboard: { writeText(text: string): void };
  shell: { openPath(path: string): Promise<string> };
  loginItem: StartAtLogin;
  /** The activity log folder (`<data dir>/logs`), known even while the agent is not running. */
  logFolder: string;
  quit(): void;
  notify(text: NotificationText): void;
  refresh(): void;
  log: Logger;
}

const FAILURE_TITLES: Record<TrayAction, string> = {
  'open-console': 'The console could not be opened',
  pause: 'Monitoring could not be paused',
  resume: 'Monitoring could not be resumed',
  'copy-api-url': 'The API URL could not be copied',
  'copy-fingerprint': 'The certificate fingerprint could not be copied',
  'open-log-folder': 'The log folder could not be opened',
  'toggle-open-at-login': 'Start at login could not be changed',
  'retry-start': 'Vigil could not start',
  quit: 'Vigil could not quit',
};

class ActionError extends Error {}

function requireAgent(deps: TrayActionDeps): RunningAgent {
  const agent = deps.agent();
  if (!agent) throw new ActionError('the agent is not running');
  return agent;
}

async function perform(action: TrayAction, deps: TrayActionDeps): Promise<void> {
  switch (action) {
    case 'open-console':
      if (!(await deps.openConsole())) throw new ActionError('the agent is not running');
      return;
    case 'pause':
    case 'resume': {
      const status = deps.status();
      if (!status?.canPause) throw new ActionError('this version of the agent cannot pause monitoring');
      await status.setPaused(action === 'pause');
      return;
    }
    case 'copy-api-url':
      deps.clipboard.writeText(requireAgent(deps).urls().apiUrl);
      return;
    case 'copy-fingerprint':
      deps.clipboard.writeText(requireAgent(deps).identity.fingerprint256);
      return;
    case 'open-log-folder': {
      // The folder appears with the first log file; create it so the file manager has something to show.
      await fs.mkdir(deps.logFolder, { recursive: true, mode: 0o700 });
      const problem = await deps.shell.openPath(deps.logFolder);
      if (problem) throw new ActionError(problem);
      return;
    }
    case 'toggle-open-at-login': {
      const enabled = deps.loginItem.isEnabled();
      if (enabled === null) throw new ActionError('this system offers no way to start apps at login');
      deps.loginItem.setEnabled(!enabled);
      return;
    }
    case 'retry-start':
      await deps.retryStart();
      return;
    case 'quit':
      deps.quit();
      return;
  }
}

export function trayActionRunner(deps: TrayActionDeps): (action: TrayAction) => Promise<void> {
  return async (action) => {
    try {
      await perform(action, deps);
    } catch (error) {
      const message = (error as Error).message;
      deps.log.warn('tray action failed', { action, error: message });
      deps.notify({ key: `action:${action}:${message}`, title: FAILURE_TITLES[action], body: message });
    } finally {
      deps.refresh();
    }
  };
}
