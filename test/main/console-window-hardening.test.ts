/**
 * The console window's fences: exact web preferences, navigation and new windows limited to
 * the console origin, permissions, and trust in the agent's own certificate only.
 */
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedIdentity, type TlsIdentity } from '../../agent/tls/certificate.js';
import { CertificateVerdict, certificateVerdict } from '../../main/certificate-trust.js';
import { CONSOLE_PARTITION, consoleWindowOptions } from '../../main/console-window.js';
import { isConsoleUrl, originOf } from '../../main/navigation-policy.js';
import {
  hardenContents,
  hardenSession,
  type HardenableSession,
  type NavigationEvent,
} from '../../main/window-hardening.js';
import { startTestAgent } from '../helpers/test-agent.js';
import { createLogger } from '../../agent/log/logger.js';

const CONSOLE = 'http://127.0.0.1:4495';

describe('console window options', () => {
  it('sets exactly the hardened web preferences, with no preload', () => {
    const options = consoleWindowOptions('/app/assets/app/icon.png');
    expect(options.webPreferences).toEqual({
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
    });
    expect(options.webPreferences?.preload).toBeUndefined();
    expect(CONSOLE_PARTITION.startsWith('persist:')).toBe(false); // the session cookie stays in memory
    expect(options).toMatchObject({ show: false, icon: '/app/assets/app/icon.png', title: 'Vigil' });
    expect('icon' in consoleWindowOptions()).toBe(false);
  });
});

describe('console origin check', () => {
  it.each([
    ['http://127.0.0.1:4495/', true],
    ['http://127.0.0.1:4495/clients?page=2#top', true],
    ['http://127.0.0.1:4495', true],
    ['http://127.0.0.1:4496/', false], // another port
    ['https://127.0.0.1:4495/', false], // another scheme
    ['http://localhost:4495/', false], // another host name: the cookie belongs to 127.0.0.1
    ['http://127.0.0.1:4495@evil.example/', false], // userinfo trick
    ['http://evil.example/?http://127.0.0.1:4495/', false],
    ['javascript:alert(1)', false],
    ['data:text/html,<h1>hi</h1>', false],
    ['file:///etc/passwd', false],
    ['about:blank', false],
    ['not a url', false],
  ])('%s → %s', (url, allowed) => {
    expect(isConsoleUrl(url, CONSOLE)).toBe(allowed);
  });

  it('allows nothing while no agent runs', () => {
    expect(isConsoleUrl('http://127.0.0.1:4495/', null)).toBe(false);
    expect(originOf('http://127.0.0.1:4495/x')).toBe(CONSOLE);
    expect(originOf('data:,x')).toBeNull();
  });
});

/** A WebContents stand-in: only the members the hardening code calls, driven like Electron drives them. */
class Contents extends EventEmitter {
  openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.openHandler = handler;
  }
  /** Emits will-navigate (or will-redirect) and says whether the navigation may go on. */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    let prevented = false;
    const e: NavigationEvent = { url, preventDefault: () => (prevented = true) };
    this.emit(event, e);
    return !prevented;
  }
}

function recordingLog() {
  const lines: string[] = [];
  return { lines, log: createLogger({ write: (l) => lines.push(l), level: 'debug' }) };
}

describe('console window navigation fence', () => {
  it('lets the console navigate inside its origin only, including redirects', () => {
    const contents = new Contents();
    const { lines, log } = recordingLog();
    hardenContents(contents, () => CONSOLE, log);
    expect(contents.navigate('http://127.0.0.1:4495/log-files')).toBe(true);
    expect(contents.navigate('https://example.com/phish?code=secret')).toBe(false);
    expect(contents.navigate('http://127.0.0.1:4495/login', 'will-redirect')).toBe(true);
    expect(contents.navigate('http://127.0.0.1:9/', 'will-redirect')).toBe(false);
    expect(lines.join('\n')).toContain('https://example.com/phish');
    expect(lines.join('\n')).not.toContain('secret'); // query strings are left out of logs
  });

  it('denies every new window and webview', () => {
    const contents = new Contents();
    hardenContents(contents, () => CONSOLE, recordingLog().log);
    expect(contents.openHandler?.({ url: 'http://127.0.0.1:4495/other' })).toEqual({ action: 'deny' });
    expect(contents.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    let prevented = false;
    contents.emit('will-attach-webview', { preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
  });

  it('reads the console origin at each navigation (the agent may restart on another port)', () => {
    let origin: string | null = CONSOLE;
    const contents = new Contents();
    hardenContents(contents, () => origin, recordingLog().log);
    origin = 'http://127.0.0.1:5000';
    expect(contents.navigate('http://127.0.0.1:4495/')).toBe(false);
    expect(contents.navigate('http://127.0.0.1:5000/')).toBe(true);
    origin = null;
    expect(contents.navigate('http://127.0.0.1:5000/')).toBe(false);
  });
});

describe('certificate trust', () => {
  let agent: Awaited<ReturnType<typeof startTestAgent>>;
  let stranger: TlsIdentity;
  beforeAll(async () => {
    agent = await startTestAgent();
    stranger = await createSelfSignedIdentity('localhost');
  });
  afterAll(() => agent.stop());

  it("trusts the running agent's own certificate on its loopback names", () => {
    const own = { data: agent.identity.certPem };
    for (const hostname of ['127.0.0.1', 'localhost', '::1', '[::1]', 'LOCALHOST']) {
      expect(certificateVerdict({ hostname, certificate: own }, agent.identity.fingerprint256)).toBe(
        CertificateVerdict.trust,
      );
    }
    expect(
      certificateVerdict({ hostname: '127.0.0.1', certificate: own }, agent.identity.fingerprint256.toLowerCase()),
    ).toBe(CertificateVerdict.trust);
  });

  it('rejects any other certificate on loopback, and everything while no agent runs', () => {
    const fp = agent.identity.fingerprint256;
    expect(certificateVerdict({ hostname: '127.0.0.1', certificate: { data: stranger.certPem } }, fp)).toBe(
      CertificateVerdict.reject,
    );
    expect(certificateVerdict({ hostname: '127.0.0.1', certificate: { data: 'garbage' } }, fp)).toBe(
      CertificateVerdict.reject,
    );
    expect(certificateVerdict({ hostname: '127.0.0.1', certificate: { data: agent.identity.certPem } }, null)).toBe(
      CertificateVerdict.reject,
    );
  });

  it("leaves other hosts to Chromium, even when they present the agent's certificate", () => {
    const fp = agent.identity.fingerprint256;
    expect(certificateVerdict({ hostname: 'example.com', certificate: { data: agent.identity.certPem } }, fp)).toBe(
      CertificateVerdict.useChromiumResult,
    );
  });

  it('installs the decision and the permission policy on the console session', () => {
    let verify: Parameters<HardenableSession['setCertificateVerifyProc']>[0] | null = null;
    let request: Parameters<HardenableSession['setPermissionRequestHandler']>[0] | null = null;
    let check: Parameters<HardenableSession['setPermissionCheckHandler']>[0] | null = null;
    let fingerprint: string | null = agent.identity.fingerprint256;
    hardenSession(
      {
        setCertificateVerifyProc: (p) => (verify = p),
        setPermissionRequestHandler: (h) => (request = h),
        setPermissionCheckHandler: (h) => (check = h),
      },
      { consoleOrigin: () => CONSOLE, agentFingerprint256: () => fingerprint },
    );
    const verdicts: number[] = [];
    verify!({ hostname: '127.0.0.1', certificate: { data: agent.identity.certPem } }, (v) => verdicts.push(v));
    fingerprint = null; // the agent stopped: its certificate is no longer trusted
    verify!({ hostname: '127.0.0.1', certificate: { data: agent.identity.certPem } }, (v) => verdicts.push(v));
    expect(verdicts).toEqual([CertificateVerdict.trust, CertificateVerdict.reject]);

    const granted: boolean[] = [];
    request!(null, 'clipboard-sanitized-write', (g) => granted.push(g), { requestingUrl: `${CONSOLE}/clients` });
    request!(null, 'clipboard-sanitized-write', (g) => granted.push(g), { requestingUrl: 'https://example.com/' });
    request!(null, 'media', (g) => granted.push(g), { requestingUrl: `${CONSOLE}/` });
    request!(null, 'notifications', (g) => granted.push(g), { requestingUrl: `${CONSOLE}/` });
    expect(granted).toEqual([true, false, false, false]);
    expect(check!(null, 'clipboard-sanitized-write', CONSOLE)).toBe(true);
    expect(check!(null, 'geolocation', CONSOLE)).toBe(false);
  });
});
