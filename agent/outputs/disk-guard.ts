/**
 * Keeps log files from filling the disk (docs/activity-pipeline.md): writing stops while the log folder
 * would grow past the quota (`logStorage.maxLocalSize`, default 5 GB) or the disk's free space
 * would drop under `logStorage.minLocalFreeSpace` (default 64 MB), and resumes by itself once
 * retention frees space or the limits change.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface StorageLimits {
  maxLocalSize: number;
  minLocalFreeSpace: number;
}

export type GuardVerdict = { ok: true } | { ok: false; reason: string; kind: 'quota' | 'free_space' };

const FREE_RECHECK_MS = 1000;
const FREE_RECHECK_BYTES = 8 * 1024 * 1024;

const formatSize = (bytes: number): string =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GB`
    : bytes >= 1024 ** 2
      ? `${(bytes / 1024 ** 2).toFixed(0)} MB`
      : `${bytes} bytes`;

export class DiskGuard {
  private used = 0;
  private free = Number.POSITIVE_INFINITY;
  private freeCheckedAt = 0;
  private writtenSinceCheck = 0;
  private refusal: GuardVerdict = { ok: true };

  constructor(
    private readonly dir: string,
    private readonly limits: () => StorageLimits,
    private readonly freeSpace: (dir: string) => number = defaultFreeSpace,
  ) {}

  /** Counts what the log folder holds now. */
  measure(): void {
    let used = 0;
    try {
      for (const name of fs.readdirSync(this.dir)) {
        const stat = fs.statSync(path.join(this.dir, name), { throwIfNoEntry: false });
        if (stat?.isFile()) used += stat.size;
      }
    } catch {
      // No folder yet: nothing used.
    }
    this.used = used;
    this.freeCheckedAt = 0;
  }

  get usedBytes(): number {
    return this.used;
  }

  /** The verdict of the last check: a refusal stays until a later write fits. */
  get lastVerdict(): GuardVerdict {
    return this.refusal;
  }

  /** May `bytes` more be written? */
  check(bytes: number): GuardVerdict {
    this.refusal = this.verdict(bytes);
    return this.refusal;
  }

  private verdict(bytes: number): GuardVerdict {
    const { maxLocalSize, minLocalFreeSpace } = this.limits();
    if (this.used + bytes > maxLocalSize) {
      return {
        ok: false,
        kind: 'quota',
        reason: `the log files reached the disk quota of ${formatSize(maxLocalSize)} (logStorage.maxLocalSize)`,
      };
    }
    const now = Date.now();
    if (now - this.freeCheckedAt >= FREE_RECHECK_MS || this.writtenSinceCheck >= FREE_RECHECK_BYTES) {
      this.free = this.freeSpace(this.dir);
      this.freeCheckedAt = now;
      this.writtenSinceCheck = 0;
    }
    if (this.free - bytes < minLocalFreeSpace) {
      return {
        ok: false,
        kind: 'free_space',
        reason: `the disk has less than ${formatSize(minLocalFreeSpace)} free (logStorage.minLocalFreeSpace)`,
      };
    }
    return { ok: true };
  }

  /** Records bytes written (positive) or freed (negative). */
  add(bytes: number): void {
    this.used = Math.max(0, this.used + bytes);
    if (bytes > 0) {
      this.writtenSinceCheck += bytes;
      this.free -= bytes;
    }
  }
}

function defaultFreeSpace(dir: string): number {
  try {
    const stats = fs.statfsSync(dir);
    return stats.bavail * stats.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
