/**
 * A small tmpfs for disk-full tests (docs/security.md: real faults only). Mounting needs root
 * (or CAP_SYS_ADMIN); where it is not allowed, `mountTmpfs` returns null and the test says so
 * by skipping. `fill` takes every free byte with a filler file; `release` gives them back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './temp-dir.js';

export interface Tmpfs {
  dir: string;
  /** Writes a filler file until the file system is full (or only `leaveBytes` are free); returns the bytes taken. */
  fill(leaveBytes?: number): number;
  /** Removes the filler. */
  release(): void;
  unmount(): void;
}

export function mountTmpfs(sizeBytes: number): Tmpfs | null {
  const dir = makeTempDir('vigil-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
  const filler = path.join(dir, 'filler.bin');
  return {
    dir,
    fill(leaveBytes = 0) {
      const fd = fs.openSync(filler, 'a');
      let taken = 0;
      const free = (): number => {
        const stats = fs.statfsSync(dir);
        return stats.bavail * stats.bsize;
      };
      try {
        for (const chunk of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
          const buffer = Buffer.alloc(chunk, 0x55);
          for (;;) {
            if (leaveBytes > 0 && free() - chunk < leaveBytes) break;
            try {
              taken += fs.writeSync(fd, buffer);
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        fs.closeSync(fd);
      }
      return taken;
    },
    release() {
      fs.rmSync(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    },
  };
}

/** Whether this process may mount a tmpfs (probed once). */
export const canMountTmpfs = ((): boolean => {
  const probe = mountTmpfs(64 * 1024);
  probe?.unmount();
  return probe !== null;
})();
