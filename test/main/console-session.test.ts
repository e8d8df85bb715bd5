/**
 * Signing the console window in: the request the main process sends (shared/console-api.ts
 * contract) against a small real HTTP server, the cookie it sets, and the window life cycle
 * around it. The token must never reach a URL or a log line.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { BrowserWindowConstructorOptions, CookiesSetDetails } from 'electron';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../agent/log/logger.js';
import { ConsolePaths, consoleSessionCookie, type SessionResponse } from '../../shared/console-api.js';

const COOKIE = consoleSessionCookie(4495);
import {
  ConsoleSessionError,
  readConsoleToken,
  requestConsoleSession,
  sessionCookie,
} from '../../main/console-session.js';
import { ConsoleWindow, type ConsoleWindowLike } from '../../main/console-window.js';
import type { NavigationEvent } from '../../main/window-hardening.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const TOKEN = 'vgc_' + 'k'.repeat(43);
/** The token the agent writes after a restart. */
const NEXT_TOKEN = 'vgc_' + 'n'.repeat(43);

interface Seen {
  method: string;
  url: string;
  host: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
}

/** The console's session endpoint as shared/console-api.ts describes it; `mode` switches its behaviour. */
let mode: 'ok' | 'unauthorized' | 'garbage' | 'silent' = 'ok';
const seen: Seen[] = [];
let server: http.Server;
let consoleUrl: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      host: req.headers.host,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
    });
    req.resume();
    if (mode === 'silent') return; // never answers
    if (req.method !== 'POST' || req.url !== ConsolePaths.sessions) {
      res.writeHead(404).end();
      return;
    }
    const valid = [`Bearer ${TOKEN}`, `Bearer ${NEXT_TOKEN}`].includes(req.headers.authorization ?? '');
    if (mode === 'unauthorized' || !valid) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_token', error_description: 'the console token is not valid' }));
      return;
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"cookieName": 5}');
      return;
    }
    const body: SessionResponse = {
      cookieName: COOKIE,
      cookieValue: 'session-' + seen.length,
      sessionKey: 'key-' + seen.length,
      expiresAt: new Date(Date.now() + 8 * 3600_000).toISOString(),
    };
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  consoleUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  mode = 'ok';
  seen.length = 0;
});

function tokenFile(contents = TOKEN + '\n'): string {
  const file = path.join(makeTempDir(), 'secrets', 'console-token');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, contents, { mode: 0o600 });
  return file;
}

describe('console session request', () => {
  it('POSTs to /api/sessions with the bearer token and a loopback Host', async () => {
    const session = await requestConsoleSession(consoleUrl, TOKEN);
    expect(session.cookieName).toBe(COOKIE);
    expect(session.sessionKey).toBe('key-1');
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/api/sessions',
        host: new URL(consoleUrl).host,
        authorization: `Bearer ${TOKEN}`,
        contentType: 'application/json',
      },
    ]);
  });

  it('a refusal names the status and error code, never the token', async () => {
    mode = 'unauthorized';
    const error = await requestConsoleSession(consoleUrl, TOKEN).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ConsoleSessionError);
    expect((error as Error).message).toBe('the console refused a session: HTTP 401 invalid_token');
    expect((error as Error).message).not.toContain(TOKEN);
  });

  it('refuses an answer that does not follow the contract', async () => {
    mode = 'garbage';
    await expect(requestConsoleSession(consoleUrl, TOKEN)).rejects.toThrow(/unexpected body/);
  });

  it('gives up after the timeout when the console does not answer', async () => {
    mode = 'silent';
    const started = Date.now();
    await expect(requestConsoleSession(consoleUrl, TOKEN, 200)).rejects.toThrow(/did not answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('says when nothing listens', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(requestConsoleSession(`http://127.0.0.1:${port}/`, TOKEN)).rejects.toThrow(/cannot be reached/);
  });

  it('talks plain HTTP to the console only', async () => {
    await expect(requestConsoleSession('https://127.0.0.1:4494/', TOKEN)).rejects.toThrow(/must be http/);
  });

  it('builds the cookie as the console would: host-only, HttpOnly, SameSite=Strict, expiring with the session', () => {
    const expiresAt = '2030-01-01T08:00:00.000Z';
    expect(sessionCookie(consoleUrl, { cookieName: COOKIE, cookieValue: 'abc', sessionKey: 'k', expiresAt })).toEqual({
      url: consoleUrl,
      name: COOKIE,
      value: 'abc',
      path: '/',
      httpOnly: true,
      secure: false,
      sameSite: 'strict',
      expirationDate: Date.parse(expiresAt) / 1000,
    });
  });

  it('reads the token file, trimming the line end; missing or empty files are errors naming the file', async () => {
    expect(await readConsoleToken(tokenFile())).toBe(TOKEN);
    const missing = path.join(makeTempDir(), 'secrets', 'console-token');
    await expect(readConsoleToken(missing)).rejects.toThrow(`${missing} cannot be read (ENOENT)`);
    await expect(readConsoleToken(tokenFile('  \n'))).rejects.toThrow(/is empty/);
  });
});

/** A BrowserWindow stand-in with the members ConsoleWindow uses; it records what happened, in order. */
class Window extends EventEmitter implements ConsoleWindowLike {
  readonly webContents = Object.assign(new EventEmitter(), {
    setWindowOpenHandler: (_handler: (details: { url: string }) => { action: 'deny' }) => undefined,
  });
  destroyed = false;
  minimized = false;
  constructor(
    readonly options: BrowserWindowConstructorOptions,
    private readonly journal: string[],
  ) {
    super();
  }
  async loadURL(url: string) {
    this.journal.push(`load ${url}`);
    this.emit('ready-to-show');
  }
  isDestroyed() {
    return this.destroyed;
  }
  isMinimized() {
    return this.minimized;
  }
  restore() {
    this.journal.push('restore');
    this.minimized = false;
  }
  show() {
    this.journal.push('show');
  }
  focus() {
    this.journal.push('focus');
  }
  close() {
    this.destroyed = true;
    this.emit('closed');
  }
  navigate(url: string): boolean {
    let prevented = false;
    const e: NavigationEvent = { url, preventDefault: () => (prevented = true) };
    this.webContents.emit('will-navigate', e);
    return !prevented;
  }
}

function consoleWindow(target: () => { consoleUrl: string; tokenFile: string } | null, now?: () => number) {
  const journal: string[] = [];
  const windows: Window[] = [];
  const cookies: CookiesSetDetails[] = [];
  const logLines: string[] = [];
  const cw = new ConsoleWindow({
    createWindow: (options) => {
      const w = new Window(options, journal);
      windows.push(w);
      journal.push('create');
      return w;
    },
    setCookie: async (details) => {
      cookies.push(details);
      journal.push(`cookie ${details.name}`);
    },
    target,
    log: createLogger({ write: (l) => logLines.push(l), level: 'debug' }),
    ...(now ? { now } : {}),
  });
  return { cw, journal, windows, cookies, logLines };
}

describe('console window', () => {
  it('sets the session cookie before it loads the console URL, whose fragment carries the session key and not the token', async () => {
    const file = tokenFile();
    const { cw, journal, windows, cookies } = consoleWindow(() => ({ consoleUrl, tokenFile: file }));
    expect(await cw.open()).toBe(true);
    expect(journal).toEqual([`cookie ${COOKIE}`, 'create', `load ${consoleUrl}#session=key-1`, 'show']);
    expect(cookies[0]).toMatchObject({ url: consoleUrl, httpOnly: true, sameSite: 'strict' });
    expect(windows[0]!.options.webPreferences?.sandbox).toBe(true);
    expect(journal.join('\n')).not.toContain(TOKEN);
  });

  it('opening again focuses the same window; a closed window is made anew with a fresh session', async () => {
    const file = tokenFile();
    const { cw, journal, windows } = consoleWindow(() => ({ consoleUrl, tokenFile: file }));
    await cw.open();
    windows[0]!.minimized = true;
    journal.length = 0;
    await cw.open();
    expect(journal).toEqual(['restore', 'show', 'focus']);
    expect(windows).toHaveLength(1);
    expect(seen).toHaveLength(1); // the session was still fresh
    windows[0]!.close();
    await cw.open();
    expect(windows).toHaveLength(2);
    expect(seen).toHaveLength(2);
  });

  it('signs the open window in again, and reloads it, when the agent restarted with a new token', async () => {
    const file = tokenFile();
    const { cw, journal, windows } = consoleWindow(() => ({ consoleUrl, tokenFile: file }));
    await cw.open();
    fs.writeFileSync(file, NEXT_TOKEN + '\n');
    journal.length = 0;
    await cw.open();
    expect(windows).toHaveLength(1);
    expect(seen.map((r) => r.authorization)).toEqual([`Bearer ${TOKEN}`, `Bearer ${NEXT_TOKEN}`]);
    expect(journal).toEqual([`cookie ${COOKIE}`, `load ${consoleUrl}#session=key-2`, 'show', 'focus']);
  });

  it('renews a session that is about to end before showing the window again', async () => {
    const file = tokenFile();
    let now = Date.now();
    const { cw, cookies } = consoleWindow(
      () => ({ consoleUrl, tokenFile: file }),
      () => now,
    );
    await cw.open();
    now += 7 * 3600_000; // an hour before the 8-hour session ends: still good
    await cw.open();
    expect(cookies).toHaveLength(1);
    now += 3600_000 - 60_000; // one minute left
    await cw.open();
    expect(cookies).toHaveLength(2);
  });

  it('fences the window to the console origin', async () => {
    const file = tokenFile();
    const { cw, windows } = consoleWindow(() => ({ consoleUrl, tokenFile: file }));
    await cw.open();
    expect(windows[0]!.navigate(new URL('/clients', consoleUrl).href)).toBe(true);
    expect(windows[0]!.navigate('https://example.com/')).toBe(false);
  });

  it('still opens the console when signing in fails, and logs why without the token', async () => {
    mode = 'unauthorized';
    const file = tokenFile();
    const { cw, journal, cookies, logLines } = consoleWindow(() => ({ consoleUrl, tokenFile: file }));
    expect(await cw.open()).toBe(true);
    expect(cookies).toEqual([]);
    expect(journal).toContain(`load ${consoleUrl}`);
    expect(logLines.join('\n')).toMatch(/could not be signed in.*HTTP 401 invalid_token/);
    expect(logLines.join('\n')).not.toContain(TOKEN);
  });

  it('does nothing while no agent runs', async () => {
    const { cw, windows } = consoleWindow(() => null);
    expect(await cw.open()).toBe(false);
    expect(windows).toEqual([]);
    expect(cw.origin()).toBeNull();
  });
});
