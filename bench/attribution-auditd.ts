/**
 * The kernel audit subsystem watching a folder the way Wazuh's who-data does (`auditctl -w DIR
 * -p rwa`), as the peer of the attribution benchmarks (docs/benchmarks.md, "Actor
 * attribution"). Starts auditd when it is not running and stops it again; sets the backlog to
 * Debian's default rules' 8192 (`-b 8192`, /etc/audit/rules.d/audit.rules) for the run; removes
 * its rule and restores the audit status it found. Root only.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { sleep } from './attribution-workload.js';

const PID_FILE = '/var/run/auditd.pid';
const KEY = 'vigil-bench';

function auditStatus(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of execFileSync('auditctl', ['-s'], { encoding: 'utf8' }).split('\n')) {
    const [key, value] = line.split(' ');
    if (key && value !== undefined) out[key] = value;
  }
  return out;
}

function runningAuditd(): number | null {
  try {
    const pid = Number(fs.readFileSync(PID_FILE, 'utf8').trim());
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

export interface AuditWatch {
  /** Removes the rule, restores the backlog and enabled flag, stops auditd if it was started here. */
  stop(): Promise<void>;
}

export async function startAuditWatch(folder: string): Promise<AuditWatch> {
  const before = auditStatus();
  const found = runningAuditd();
  let started: number | null = null;
  if (found === null) {
    execFileSync('auditd'); // forks into the background once it is listening
    for (let i = 0; i < 100 && (started = runningAuditd()) === null; i++) await sleep(100);
    if (started === null) throw new Error('auditd did not start');
  }
  execFileSync('auditctl', ['-b', '8192']);
  execFileSync('auditctl', ['-e', '1']);
  execFileSync('auditctl', ['-w', folder, '-p', 'rwa', '-k', KEY]);
  return {
    stop: async () => {
      execFileSync('auditctl', ['-W', folder, '-p', 'rwa', '-k', KEY]);
      execFileSync('auditctl', ['-b', before['backlog_limit'] ?? '64']);
      if (started !== null) {
        process.kill(started, 'SIGTERM');
        for (let i = 0; i < 100 && runningAuditd() !== null; i++) await sleep(100);
      }
      execFileSync('auditctl', ['-e', before['enabled'] ?? '0']);
    },
  };
}
