/**
 * The tray application, assembled from the tested parts with Electron's real modules
 * (index.ts passes them in). Boot order, as in Electron Fiddle's onReady: single-instance
 * lock and quit handler first, then on ready the console session fences, the console window,
 * the tray, and the agent last, so the tray already shows "Starting…" while ports bind.
 */
import os from 'node:os';
import path from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import { createLogger, dataPaths, parseLogLevel, startAgent, type Logger, type RunningAgent } from '../agent/agent.js';
import { AgentHost } from './agent-host.js';
import { statusSourceFor, type AgentStatusSource } from './agent-status.js';
import { APP_ID } from './app-identity.js';
import { CONSOLE_PARTITION, ConsoleWindow } from './console-window.js';
import { DIAGNOSTIC_LOG, diagnosticLogWriter } from './diagnostic-log.js';
import { autostartDir, launchCommand, startAtLogin } from './login-item.js';
import { NotificationThrottle, type NotificationText } from './notifications.js';
import { installQuitHandler } from './quit-handler.js';
import { claimSingleInstance } from './single-instance.js';
import { trayActionRunner } from './tray-actions.js';
import { TrayController, snapshotOf } from './tray-controller.js';
import { trayDataDir } from './tray-data-dir.js';
import { assetsDir, trayIconFile, windowIconFile } from './tray-icons.js';
import { hardenSession } from './window-hardening.js';

export type ElectronModules = Pick<
  typeof import('electron'),
  'app' | 'BrowserWindow' | 'Menu' | 'Notification' | 'Tray' | 'clipboard' | 'session' | 'shell'
>;

/** Today's count and the date change even when nothing else does. */
const REFRESH_MS = 30_000;

export function runTrayApp(electron: ElectronModules, env: NodeJS.ProcessEnv = process.env): void {
  const { app } = electron;
  let consoleWindow: ConsoleWindow | null = null;
  if (!claimSingleInstance(app, () => void consoleWindow?.open())) return;
  if (process.platform === 'win32') app.setAppUserModelId(APP_ID);

  const dataDir = trayDataDir(app.getPath('userData'), env);
  const write = diagnosticLogWriter(path.join(dataDir, DIAGNOSTIC_LOG), {
    echo: (line) => process.stderr.write(line + '\n'),
  });
  const log = createLogger({ level: parseLogLevel(env['VIGIL_LOG_LEVEL']), write });
  const host = new AgentHost<RunningAgent>(
    () => startAgent({ dataDir, log, version: app.getVersion() }),
    log.child('tray'),
  );
  installQuitHandler(app, { stop: () => host.stop(), log: log.child('tray') });
  // Closing the console window leaves the app running in the tray (Electron quits otherwise).
  app.on('window-all-closed', () => undefined);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app
    .whenReady()
    .then(() => {
      consoleWindow = onReady(electron, host, dataDir, log.child('tray'), env);
    })
    .catch((error: Error) => {
      log.error('the tray app could not start', { error: error.message });
      app.exit(1);
    });
}

function onReady(
  electron: ElectronModules,
  host: AgentHost<RunningAgent>,
  dataDir: string,
  log: Logger,
  env: NodeJS.ProcessEnv,
): ConsoleWindow {
  const { app } = electron;
  app.dock?.hide(); // a tray app, not a dock app
  const assets = assetsDir({
    isPackaged: app.isPackaged,
    appPath: app.getAppPath(),
    resourcesPath: process.resourcesPath,
  });
  const consoleSession = electron.session.fromPartition(CONSOLE_PARTITION);
  const consoleWindow = new ConsoleWindow({
    createWindow: (options) => new electron.BrowserWindow(options),
    setCookie: (details) => consoleSession.cookies.set(details),
    target: () => {
      const agent = host.agent;
      return agent ? { consoleUrl: agent.urls().consoleUrl, tokenFile: agent.paths.consoleToken } : null;
    },
    log,
    icon: windowIconFile(assets),
  });
  hardenSession(consoleSession, {
    consoleOrigin: () => consoleWindow.origin(),
    agentFingerprint256: () => host.agent?.identity.fingerprint256 ?? null,
  });

  const loginItem = startAtLogin({
    platform: process.platform,
    app,
    launch: launchCommand({ isPackaged: app.isPackaged, execPath: process.execPath, appPath: app.getAppPath(), env }),
    autostartDir: autostartDir(env, os.homedir()),
  });
  const throttle = new NotificationThrottle();
  const notify = (text: NotificationText): void => {
    log.warn(text.title, { detail: text.body });
    if (!electron.Notification.isSupported() || !throttle.allow(text.key)) return;
    new electron.Notification({ title: text.title, body: text.body, icon: windowIconFile(assets) }).show();
  };

  let status: AgentStatusSource | null = null;
  let unsubscribe = (): void => undefined;
  const iconFile = (state: Parameters<typeof trayIconFile>[0]) => trayIconFile(state, process.platform, assets);
  const tray = new electron.Tray(iconFile('running'));
  const run = trayActionRunner({
    agent: () => host.agent,
    status: () => status,
    retryStart: () => host.start(),
    openConsole: () => consoleWindow.open(),
    clipboard: electron.clipboard,
    shell: electron.shell,
    loginItem,
    logFolder: dataPaths(dataDir).logs,
    quit: () => app.quit(),
    notify,
    refresh: () => controller.render(),
    log,
  });
  const controller = new TrayController({
    tray,
    buildMenu: (template: MenuItemConstructorOptions[]) => electron.Menu.buildFromTemplate(template),
    snapshot: () => snapshotOf(host, status, loginItem),
    failure: () => host.failure,
    iconFile,
    run: (action) => void run(action),
    notify,
  });
  if (process.platform === 'win32') tray.on('click', () => void run('open-console'));

  host.onChange(() => {
    unsubscribe();
    status = host.agent ? statusSourceFor(host.agent) : null;
    unsubscribe = status ? status.onChange(() => controller.render()) : () => undefined;
    controller.render();
  });
  setInterval(() => controller.render(), REFRESH_MS).unref();
  controller.render();
  void host.start();
  return consoleWindow;
}
