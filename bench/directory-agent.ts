/**
 * A real `vigil agent` process (the compiled CLI) monitoring one directory domain, for the
 * directory benchmark (docs/benchmarks.md, "Directory monitoring"). The domain, its Changes
 * policy and an audit user are set up offline before the start, the domain disabled, so the
 * benchmark can measure the agent before and after the baseline it takes once the domain is
 * enabled through the console API. Its JavaScript heap is read from a Node.js diagnostic report
 * (`--report-on-signal`, SIGUSR2), its CPU time and resident memory from /proc.
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(import.meta.dirname, '..');
const ENTRY = path.join(ROOT, 'bin', 'vigil.js');
const DOMAIN_ID = 'EXAMPLE';
const AUDIT_USER = 'bench:bench-password';
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

export interface DomainTarget {
  ldapServer: string;
  bindDn: string;
  password: string;
  baseDn: string;
  pollingIntervalSeconds: number;
  /** The `<Changes>` part of the policy. */
  changes: string;
}

export interface AuditRecord {
  What: string;
  Who: string;
  Action: string;
  DataSource: string;
}

export interface DirectoryAgent {
  pid: number;
  /** Enables the domain and resolves when its first poll (the baseline) has been committed. */
  enableAndWaitForBaseline(): Promise<void>;
  /** The domain's status summary as the console shows it. */
  status(): Promise<string>;
  /** User plus system CPU seconds of the whole process (every thread). */
  cpuSeconds(): number;
  /** Resident and peak resident memory in bytes (VmRSS, VmHWM). */
  memory(): { rss: number; peakRss: number };
  /** The used JavaScript heap of the main thread, from a diagnostic report. */
  heapUsed(): Promise<number>;
  /** Records written since the previous call (the first call skips what is there). */
  newRecords(): Promise<AuditRecord[]>;
  stop(): Promise<void>;
}

function vigil(args: string[], stdin: string, home: string): void {
  execFileSync(process.execPath, [ENTRY, ...args], {
    input: stdin,
    env: { ...process.env, HOME: home },
    stdio: 'pipe',
  });
}

function request(
  options: https.RequestOptions & { secure: boolean },
  body?: string,
): Promise<{ status: number; text: string }> {
  const { secure, ...rest } = options;
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request({ host: '127.0.0.1', timeout: 60_000, ...rest }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

export async function startDirectoryAgent(target: DomainTarget): Promise<DirectoryAgent> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-bench-dir-'));
  const home = path.join(dataDir, 'home');
  const reports = path.join(dataDir, 'reports');
  fs.mkdirSync(home);
  fs.mkdirSync(reports);
  const data = ['--data-dir', path.join(dataDir, 'agent')];
  vigil(
    [
      'domain',
      'add',
      '--name',
      'example.test',
      '--server',
      target.ldapServer,
      '--bind-dn',
      target.bindDn,
      '--base-dn',
      target.baseDn,
      '--polling-interval',
      String(target.pollingIntervalSeconds),
      '--tls',
      'none',
      '--password-stdin',
      ...data,
    ],
    target.password,
    home,
  );
  const [user, password] = AUDIT_USER.split(':') as [string, string];
  vigil(['user', 'add', '--name', user, '--role', 'reader', '--password-stdin', ...data], password, home);
  // The policy goes into settings.json as the agent API would store it; the domain starts disabled.
  const settingsFile = path.join(dataDir, 'agent', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as {
    domains: Array<{ id: string; isEnabled: boolean }>;
    policies?: unknown[];
  };
  settings.domains[0]!.isEnabled = false;
  settings.policies = [
    {
      id: 'bench-changes',
      domainId: DOMAIN_ID,
      name: 'Bench changes',
      guid: crypto.randomUUID(),
      isEnabled: true,
      updatedAt: new Date().toISOString(),
      xml: `<Policy><Name>Bench changes</Name><IsEnabled>true</IsEnabled><Changes>${target.changes}</Changes></Policy>`,
    },
  ];
  fs.writeFileSync(settingsFile, JSON.stringify(settings));

  const child = spawn(
    process.execPath,
    [ENTRY, 'agent', ...data, '--api-port', '0', '--audit-port', '0', '--console-port', '0'],
    {
      env: {
        ...process.env,
        HOME: home,
        VIGIL_LOG_LEVEL: 'warn',
        NODE_OPTIONS: `--report-on-signal --report-directory=${reports} --report-compact`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ auditUrl: string; consoleUrl: string }>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const newline = buffered.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(buffered.slice(0, newline)) as { auditUrl: string; consoleUrl: string });
    });
    void exited.then(() => reject(new Error(`the agent exited before it was ready; stderr:\n${stderr}`)));
  });
  const pid = child.pid!;
  const ca = fs.readFileSync(path.join(dataDir, 'agent', 'tls', 'cert.pem'), 'utf8');
  const tlsAgent = new https.Agent({ keepAlive: true, ca, maxSockets: 1 });
  const audit = new URL(ready.auditUrl);
  const consolePort = Number(new URL(ready.consoleUrl).port);
  const consoleToken = fs.readFileSync(path.join(dataDir, 'agent', 'secrets', 'console-token'), 'utf8').trim();

  const callConsole = async (method: string, route: string, body?: unknown): Promise<unknown> => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const res = await request(
      {
        secure: false,
        port: consolePort,
        method,
        path: route,
        headers: {
          Authorization: `Bearer ${consoleToken}`,
          ...(text === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      text,
    );
    if (res.status !== 200) throw new Error(`${method} ${route} answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text) as unknown;
  };
  const status = async (): Promise<string> => {
    const domains = (await callConsole('GET', '/api/domains')) as Array<{
      id: string;
      status: { summary: string } | null;
    }>;
    return domains.find((d) => d.id === DOMAIN_ID)?.status?.summary ?? '';
  };

  let mark: string | null = null;
  const enumPage = async (): Promise<{ ActivityRecordList: AuditRecord[]; ContinuationMark: string }> => {
    const body = mark === null ? undefined : JSON.stringify(mark);
    const res = await request(
      {
        secure: true,
        agent: tlsAgent,
        port: Number(audit.port),
        method: body === undefined ? 'GET' : 'POST',
        path: `${audit.pathname.replace(/\/$/, '')}/activity_records/enum?format=json&count=5000`,
        headers: {
          Authorization: `Basic ${Buffer.from(AUDIT_USER).toString('base64')}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
      },
      body,
    );
    if (res.status !== 200) throw new Error(`enum answered ${res.status}: ${res.text.slice(0, 300)}`);
    return JSON.parse(res.text) as { ActivityRecordList: AuditRecord[]; ContinuationMark: string };
  };
  let exitCode: string | null = null;
  void exited.then(() => (exitCode = String(child.exitCode ?? child.signalCode)));
  /** Errors say whether the agent is still there, with what it wrote to stderr. */
  const explained = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      await new Promise((r) => setTimeout(r, 500));
      const state = exitCode === null ? 'the agent is running' : `the agent exited (${exitCode})`;
      throw new Error(`${what}: ${(error as Error).message}; ${state}; stderr:\n${stderr.slice(-4000)}`, {
        cause: error,
      });
    }
  };
  const newRecords = async (): Promise<AuditRecord[]> => {
    const first = mark === null;
    const out: AuditRecord[] = [];
    for (;;) {
      const page = await explained('reading the audit API', async () => {
        // A kept-alive socket the agent closed while idle is reset on reuse: a page is read again.
        for (let attempt = 1; ; attempt++) {
          try {
            return await enumPage();
          } catch (error) {
            const code = (error as NodeJS.ErrnoException).code;
            if (attempt === 3 || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw error;
          }
        }
      });
      mark = page.ContinuationMark;
      if (page.ActivityRecordList.length === 0) break;
      out.push(...page.ActivityRecordList);
    }
    return first ? [] : out;
  };

  const proc = (file: string): string => fs.readFileSync(`/proc/${pid}/${file}`, 'utf8');
  return {
    pid,
    status,
    async enableAndWaitForBaseline() {
      const domains = (await callConsole('GET', '/api/domains')) as Array<Record<string, unknown>>;
      const domain = domains.find((d) => d['id'] === DOMAIN_ID)!;
      await callConsole('PUT', `/api/domains/${DOMAIN_ID}`, {
        name: domain['name'],
        ldapServer: domain['ldapServer'],
        userName: domain['userName'],
        isEnabled: true,
      });
      const deadline = Date.now() + 600_000;
      for (;;) {
        const summary = await status();
        if (/^Monitoring \d+ Changes polic/.test(summary)) return;
        if (/fail|cannot|refused/.test(summary)) throw new Error(`the first poll failed: ${summary}`);
        if (Date.now() > deadline) throw new Error(`no baseline within 10 minutes (${summary})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    cpuSeconds() {
      // Fields after the command name (which is in parentheses): utime and stime are 14 and 15.
      const fields = proc('stat')
        .slice(proc('stat').lastIndexOf(')') + 2)
        .split(' ');
      return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    },
    memory() {
      const text = proc('status');
      const kib = (name: string): number =>
        Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
      return { rss: kib('VmRSS'), peakRss: kib('VmHWM') };
    },
    async heapUsed() {
      const before = new Set(fs.readdirSync(reports));
      process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + 30_000;
      for (;;) {
        const file = fs.readdirSync(reports).find((f) => !before.has(f));
        if (file) {
          try {
            const report = JSON.parse(fs.readFileSync(path.join(reports, file), 'utf8')) as {
              javascriptHeap: { usedMemory: number };
            };
            fs.rmSync(path.join(reports, file));
            return report.javascriptHeap.usedMemory;
          } catch {
            // still being written
          }
        }
        if (Date.now() > deadline) throw new Error('no diagnostic report within 30 s');
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    newRecords,
    async stop() {
      tlsAgent.destroy();
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
