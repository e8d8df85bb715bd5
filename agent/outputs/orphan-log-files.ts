/**
 * Log files no output claims any more (the output was removed or renamed its files) still
 * count against the disk quota, so they follow the default retention of 10 days.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../config/settings-schema.js';
import { logFileBaseName } from '../config/monitoring-schema.js';
import type { Logger } from '../log/logger.js';
import { sidecarPath } from '../integrity/log-sidecar.js';
import type { DiskGuard } from './disk-guard.js';
import { dayMinus, parseLogFileName, utcDay } from './log-file-names.js';

export const ORPHAN_RETENTION_DAYS = 10;

/** What says which output writes which log files: the hosts, the domains and their outputs. */
export type LogFileOwnerSettings = Pick<Settings, 'hosts' | 'outputs' | 'domains' | 'domainOutputs'>;

/** `base.format` keys of the files each LogFile output (of a host or a domain) writes, mapped to the output id. */
export function logFileOwners(settings: LogFileOwnerSettings): Map<string, string> {
  const hosts = new Map(settings.hosts.map((h) => [h.id, h]));
  const domains = new Map(settings.domains.map((d) => [d.id, d]));
  const owners = new Map<string, string>();
  for (const output of settings.outputs) {
    const host = hosts.get(output.hostId);
    if (output.type !== 'LogFile' || !output.logFile || !host) continue;
    owners.set(`${logFileBaseName(output, { host: host.host })}.${output.logFile.format}`, output.id);
  }
  for (const output of settings.domainOutputs) {
    const domain = domains.get(output.domainId);
    if (output.type !== 'LogFile' || !output.logFile || !domain) continue;
    owners.set(`${logFileBaseName(output, { name: domain.name })}.${output.logFile.format}`, output.id);
  }
  return owners;
}

export function sweepOrphanLogFiles(dir: string, settings: Settings, now: number, guard: DiskGuard, log: Logger): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const owners = logFileOwners(settings);
  const oldest = dayMinus(utcDay(now), ORPHAN_RETENTION_DAYS);
  for (const name of names) {
    const parsed = parseLogFileName(name);
    if (!parsed || owners.has(`${parsed.base}.${parsed.format}`) || parsed.day >= oldest) continue;
    const full = path.join(dir, name);
    const sidecar = sidecarPath(full);
    const size =
      (fs.statSync(full, { throwIfNoEntry: false })?.size ?? 0) +
      (fs.statSync(sidecar, { throwIfNoEntry: false })?.size ?? 0);
    fs.rmSync(full, { force: true });
    fs.rmSync(sidecar, { force: true });
    guard.add(-size);
    log.info('log file of a removed output deleted after retention', { file: name });
  }
}
