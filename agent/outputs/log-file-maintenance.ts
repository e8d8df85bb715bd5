/**
 * The daily care of one output's log files: files past retention are deleted with their
 * sidecars, closed days are zipped with their sidecars (docs/integrity.md), and the disk guard
 * follows the sizes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LogFileOptions } from '../config/monitoring-schema.js';
import { sidecarPath } from '../integrity/log-sidecar.js';
import type { Logger } from '../log/logger.js';
import type { DiskGuard } from './disk-guard.js';
import { readActivityRange, zipLogFile } from './log-file-io.js';
import { dayMinus, type LogFileName } from './log-file-names.js';

export interface LogFileCare {
  dir: string;
  files: readonly LogFileName[];
  /** Today (UTC), as log file names spell a day. */
  today: string;
  options: LogFileOptions;
  /** The file being written, never zipped. */
  openName: string | null;
  guard: DiskGuard;
  log: Logger;
}

export async function maintainLogFiles(care: LogFileCare): Promise<void> {
  const { dir, today, options, guard, log } = care;
  const oldest = dayMinus(today, options.daysToRetain);
  const sizeOf = (file: string): number => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  for (const file of care.files) {
    const full = path.join(dir, file.fileName);
    if (file.day < oldest) {
      const size = sizeOf(full) + sizeOf(sidecarPath(full));
      fs.rmSync(full, { force: true });
      fs.rmSync(sidecarPath(full), { force: true });
      guard.add(-size);
      log.info('log file past retention deleted', { file: file.fileName });
      continue;
    }
    if (!file.zipped && file.day < today && options.zipClosedFiles && care.openName !== file.fileName) {
      try {
        const before = fs.statSync(full).size + sizeOf(sidecarPath(full));
        const zip = await zipLogFile(full, readActivityRange(full, file.format));
        guard.add(fs.statSync(zip).size - before);
      } catch (error) {
        log.warn('could not zip a closed log file', { file: file.fileName, error: (error as Error).message });
      }
    }
  }
}
