/**
 * The console window: one at a time, showing the console listener's page, logged in through
 * a session cookie set by the main process and the session key in the fragment of the address
 * it loads (console-session.ts), fenced by
 * window-hardening.ts. Opening it again (tray menu, second launch) brings the existing window
 * forward instead of making another.
 */
import { createHash } from 'node:crypto';
import type { BrowserWindowConstructorOptions, CookiesSetDetails } from 'electron';
import type { SessionResponse } from '../shared/console-api.js';
import type { Logger } from '../agent/agent.js';
import { readConsoleToken, requestConsoleSession, sessionCookie, sessionUrl } from './console-session.js';
import { originOf } from './navigation-policy.js';
import { hardenContents, type HardenableContents } from './window-hardening.js';

/** No "persist:" prefix: an in-memory session, so the console cookie never touches the disk. */
export const CONSOLE_PARTITION = 'vigil-console';

/** The one place the console window's options and web preferences are decided (tested as a whole). */
export function consoleWindowOptions(icon?: string): BrowserWindowConstructorOptions {
  return {
    title: 'Vigil',
    width: 1100,
    height: 760,
    minWidth: 720,
    minHeight: 480,
    show: false, // shown on ready-to-show, so no blank frame flashes
    autoHideMenuBar: true,
    ...(icon ? { icon } : {}),
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      partition: CONSOLE_PARTITION,
      // No preload: the console is a web app talking HTTP to its own origin; it needs no IPC.
    },
  };
}

export interface ConsoleWindowLike {
  readonly webContents: HardenableContents;
  loadURL(url: string): Promise<void>;
  isDestroyed(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
}

/** Where the console is, while an agent runs. */
export interface ConsoleTarget {
  consoleUrl: string;
  tokenFile: string;
}

export interface ConsoleWindowDeps {
  createWindow(options: BrowserWindowConstructorOptions): ConsoleWindowLike;
  setCookie(details: CookiesSetDetails): Promise<void>;
  target(): ConsoleTarget | null;
  log: Logger;
  icon?: string;
  now?: () => number;
}

/** A session that ends within this margin is renewed before the window is shown again. */
const RENEW_MARGIN_MS = 5 * 60_000;

export class ConsoleWindow {
  private window: ConsoleWindowLike | null = null;
  private shownUrl: string | null = null;
  private session: { consoleUrl: string; tokenDigest: string; expiresAt: number } | null = null;

  constructor(private readonly deps: ConsoleWindowDeps) {}

  /** The console origin the window may show, or null while no agent runs. */
  origin(): string | null {
    const target = this.deps.target();
    return target ? originOf(target.consoleUrl) : null;
  }

  /** Shows the console; false when no agent runs (there is nothing to show). */
  async open(): Promise<boolean> {
    const target = this.deps.target();
    if (!target) return false;
    const existing = this.window && !this.window.isDestroyed() ? this.window : null;
    const renewed = await this.ensureSession(target, existing === null);
    // The page takes the session key from the address it is opened at.
    const url = renewed === null ? target.consoleUrl : sessionUrl(target.consoleUrl, renewed);
    if (existing) {
      // A new session (the agent restarted, or the old one was ending) needs the page reloaded to take effect.
      if (renewed || this.shownUrl !== target.consoleUrl) await this.load(existing, target.consoleUrl, url);
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
      return true;
    }
    const window = this.deps.createWindow(consoleWindowOptions(this.deps.icon));
    this.window = window;
    hardenContents(window.webContents, () => this.origin(), this.deps.log);
    window.once('ready-to-show', () => window.show());
    window.on('closed', () => {
      if (this.window === window) this.window = null;
    });
    await this.load(window, target.consoleUrl, url);
    return true;
  }

  private async load(window: ConsoleWindowLike, consoleUrl: string, url: string): Promise<void> {
    this.shownUrl = consoleUrl;
    try {
      await window.loadURL(url);
    } catch (error) {
      // The console's address only: the fragment holds the session key.
      this.deps.log.warn('the console page did not load', { url: consoleUrl, error: (error as Error).message });
    }
  }

  /**
   * Asks for a session for a new window, when the console's token changed (the agent
   * restarted, so its sessions are gone) or when the current session is about to end.
   * Returns the new session once its cookie is set, or null when the current one stays.
   */
  private async ensureSession(target: ConsoleTarget, newWindow: boolean): Promise<SessionResponse | null> {
    const now = (this.deps.now ?? Date.now)();
    try {
      const token = await readConsoleToken(target.tokenFile);
      // Only a digest is kept, to recognise the token later; the token itself is not stored.
      const tokenDigest = createHash('sha256').update(token).digest('hex');
      const current = this.session;
      const stillGood =
        current !== null &&
        current.consoleUrl === target.consoleUrl &&
        current.tokenDigest === tokenDigest &&
        current.expiresAt - now > RENEW_MARGIN_MS;
      if (!newWindow && stillGood) return null;
      const session = await requestConsoleSession(target.consoleUrl, token);
      await this.deps.setCookie(sessionCookie(target.consoleUrl, session));
      this.session = { consoleUrl: target.consoleUrl, tokenDigest, expiresAt: Date.parse(session.expiresAt) };
      return session;
    } catch (error) {
      // The console still opens and offers its own sign-in; the reason goes to the log.
      this.session = null;
      this.deps.log.warn('the console window could not be signed in', { error: (error as Error).message });
      return null;
    }
  }
}
