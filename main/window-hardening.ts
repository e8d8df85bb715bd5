/**
 * The console window's fences (Electron security checklist, items 4, 13–15, 17): the window shows the console
 * origin and nothing else, opens no
 * windows, embeds no webviews, asks for no permissions except writing to the clipboard (the
 * console copies new client secrets), and its session trusts only the agent's certificate on
 * loopback. The interfaces below list the few Electron members used; main/tray-app.ts passes
 * the real objects, so tsc checks them against Electron's own types.
 */
import { certificateVerdict, type CertificateCheck } from './certificate-trust.js';
import { isConsoleUrl } from './navigation-policy.js';

export interface NavigationEvent {
  url: string;
  preventDefault(): void;
}

export interface HardenableContents {
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: NavigationEvent) => void): unknown;
  on(event: 'will-redirect', listener: (event: NavigationEvent) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): unknown;
}

export interface HardenableSession {
  setCertificateVerifyProc(proc: (request: CertificateCheck, callback: (verdict: number) => void) => void): void;
  setPermissionRequestHandler(
    handler: (
      contents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl: string },
    ) => void,
  ): void;
  setPermissionCheckHandler(
    handler: (contents: unknown, permission: string, requestingOrigin: string) => boolean,
  ): void;
}

export interface HardeningLog {
  warn(message: string, fields?: Record<string, string>): void;
}

/** Permissions the console may use, each only from its own origin. */
const CONSOLE_PERMISSIONS = new Set(['clipboard-sanitized-write']);

/** Navigation and new windows: only the console origin, read at each event (the port can change on restart). */
export function hardenContents(
  contents: HardenableContents,
  consoleOrigin: () => string | null,
  log: HardeningLog,
): void {
  contents.setWindowOpenHandler(({ url }) => {
    log.warn('the console window tried to open a new window; refused', { url: redact(url) });
    return { action: 'deny' };
  });
  const fence = (event: NavigationEvent): void => {
    if (isConsoleUrl(event.url, consoleOrigin())) return;
    event.preventDefault();
    log.warn('the console window tried to leave the console; refused', { url: redact(event.url) });
  };
  contents.on('will-navigate', fence);
  contents.on('will-redirect', fence);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

export function hardenSession(
  session: HardenableSession,
  trust: { consoleOrigin: () => string | null; agentFingerprint256: () => string | null },
): void {
  session.setCertificateVerifyProc((request, callback) =>
    callback(certificateVerdict(request, trust.agentFingerprint256())),
  );
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(CONSOLE_PERMISSIONS.has(permission) && isConsoleUrl(details.requestingUrl, trust.consoleOrigin())),
  );
  session.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) =>
      CONSOLE_PERMISSIONS.has(permission) && isConsoleUrl(requestingOrigin, trust.consoleOrigin()),
  );
}

/** Query strings and fragments can carry codes; logs keep the origin and path only. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    return u.origin === 'null' ? u.protocol : `${u.origin}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}
