/**
 * A real `vigil agent` process (the compiled CLI, as an operator runs it) for fault and load
 * tests: it can be killed with SIGKILL, have its stderr sent to a full device, or carry load
 * without sharing the test's event loop. Requests go over loopback to its three listeners,
 * trusting exactly its certificate; the console is reached with its console token.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { FREE_PORTS, REPO_ROOT } from './cli.js';
import { makeTempDir } from './temp-dir.js';

const ENTRY = path.join(REPO_ROOT, 'bin', 'vigil.js');

export interface HttpResult {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface AgentProcessOptions {
  dataDir?: string;
  /** Written to settings.json before the start when given (and no settings file exists yet). */
  settings?: Record<string, unknown>;
  /** 'pipe' (captured in `stderr()`) or a file descriptor, e.g. one opened on /dev/full. */
  stderr?: 'pipe' | number;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  env?: NodeJS.ProcessEnv;
  readyTimeoutMs?: number;
  /** Runs the agent as this account (`runuser -u`); its data dir and HOME must be its own. */
  runAs?: string;
  /**
   * Runs the command through this prefix, e.g. `ip netns exec NS` (test/helpers/netns.ts). The
   * request helpers still go to 127.0.0.1, which is not the agent's loopback inside a namespace.
   */
  prefix?: string[];
}

export interface AgentProcess {
  child: ChildProcess;
  dataDir: string;
  ready: { apiUrl: string; auditUrl: string; consoleUrl: string; certificateSha256: string };
  ports: { api: number; audit: number; console: number };
  ca: string;
  /** What the agent wrote to stderr so far (when piped). */
  stderr(): string;
  api(request: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<HttpResult>;
  /** `path` after `/{vendor}/api/v1/`; `auth` is `user:password`. */
  audit(request: {
    method?: string;
    path: string;
    auth?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  }): Promise<HttpResult>;
  console(request: { method?: string; path: string; body?: unknown }): Promise<HttpResult>;
  /** SIGTERM and wait for the exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for the exit. */
  kill(): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function emptyHome(): string {
  return makeTempDir('vigil-home-');
}

export async function startAgentProcess(options: AgentProcessOptions = {}): Promise<AgentProcess> {
  const dataDir = options.dataDir ?? makeTempDir();
  const settingsFile = path.join(dataDir, 'settings.json');
  if (options.settings && !fs.existsSync(settingsFile)) {
    fs.mkdirSync(dataDir, { recursive: true });
    fs.writeFileSync(settingsFile, JSON.stringify(options.settings));
  }
  const command = [process.execPath, ENTRY, 'agent', '--data-dir', dataDir, ...FREE_PORTS];
  const [file, ...args] = [
    ...(options.prefix ?? []),
    ...(options.runAs ? ['runuser', '-u', options.runAs, '--', ...command] : command),
  ];
  const child = spawn(file!, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, HOME: emptyHome(), VIGIL_LOG_LEVEL: options.logLevel ?? 'info', ...options.env },
    stdio: ['ignore', 'pipe', options.stderr ?? 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = await new Promise<AgentProcess['ready']>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ready line within ${options.readyTimeoutMs ?? 30_000} ms; stderr:\n${stderr}`));
    }, options.readyTimeoutMs ?? 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(buffered.slice(0, newline)) as AgentProcess['ready']);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`agent exited (${code ?? signal}) before the ready line; stderr:\n${stderr}`));
    });
  });
  const ca = fs.readFileSync(path.join(dataDir, 'tls', 'cert.pem'), 'utf8');
  const ports = {
    api: Number(new URL(ready.apiUrl).port),
    audit: Number(new URL(ready.auditUrl).port),
    console: Number(new URL(ready.consoleUrl).port),
  };
  const vendor = new URL(ready.auditUrl).pathname.split('/')[1]!;
  const tlsAgent = new https.Agent({ keepAlive: true, ca, maxSockets: 16 });

  const send = (
    module: typeof http | typeof https,
    options: http.RequestOptions,
    body?: string | Buffer,
  ): Promise<HttpResult> =>
    new Promise((resolve, reject) => {
      const req = module.request({ host: '127.0.0.1', timeout: 30_000, ...options }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('request timed out')));
      req.on('error', reject);
      req.end(body);
    });

  const consoleToken = (): string => fs.readFileSync(path.join(dataDir, 'secrets', 'console-token'), 'utf8').trim();

  return {
    child,
    dataDir,
    ready,
    ports,
    ca,
    stderr: () => stderr,
    exited,
    api: (r) =>
      send(
        https,
        { port: ports.api, method: r.method ?? 'GET', path: r.path, headers: r.headers ?? {}, agent: tlsAgent },
        r.body,
      ),
    audit: (r) => {
      const headers: Record<string, string> = { ...r.headers };
      if (r.auth) headers['Authorization'] = `Basic ${Buffer.from(r.auth).toString('base64')}`;
      if (r.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(r.body));
      return send(
        https,
        {
          port: ports.audit,
          method: r.method ?? (r.body === undefined ? 'GET' : 'POST'),
          path: `/${vendor}/api/v1/${r.path}`,
          headers,
          agent: tlsAgent,
        },
        r.body,
      );
    },
    console: (r) => {
      const body = r.body === undefined ? undefined : JSON.stringify(r.body);
      return send(
        http,
        {
          port: ports.console,
          method: r.method ?? 'GET',
          path: r.path,
          headers: {
            Authorization: `Bearer ${consoleToken()}`,
            ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          },
        },
        body,
      );
    },
    async stop() {
      tlsAgent.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return (await exited).code;
    },
    async kill() {
      tlsAgent.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Adds a client application through the agent's console API and returns its credentials. */
export async function addClient(
  agent: AgentProcess,
  permissions: string[] = ['read'],
  name = `client-${Math.random().toString(36).slice(2, 8)}`,
): Promise<{ clientId: string; clientSecret: string }> {
  const res = await agent.console({ method: 'POST', path: '/api/clients', body: { name, permissions } });
  if (res.status !== 201) throw new Error(`adding a client failed: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as { clientId: string; clientSecret: string };
}

export const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };
