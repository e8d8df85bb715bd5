/**
 * The file snapshot each host's watcher keeps in the audit database (migration 2): one row per
 * watched file or folder. Rows change in the same transaction as the records that describe the
 * change, so after a crash the snapshot matches exactly the records that were committed, and
 * the start-up scan reports what is missing, once.
 */
import type Database from 'better-sqlite3';

export interface SnapshotEntry {
  dir: boolean;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Creation time where the file system keeps one (statx), else 0. Tells a rename from inode reuse. */
  birthMs: number;
}

/** The include and exclude folders a snapshot was taken with (normalised). */
export interface Coverage {
  include: string[];
  exclude: string[];
}

/** Changes to one host's snapshot, applied in order. */
export type SnapshotOp =
  | { op: 'upsert'; path: string; entry: SnapshotEntry }
  | { op: 'delete'; path: string }
  /** The path and everything under it. */
  | { op: 'deleteTree'; path: string };

interface SnapshotRow {
  path: string;
  is_dir: number;
  dev: number;
  ino: number;
  size: number;
  mtime_ms: number;
  birth_ms: number;
}

export class MonitorStateTable {
  private readonly upsert: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly removeRange: Database.Statement;
  private readonly selectHost: Database.Statement;
  private readonly removeHost: Database.Statement;
  private readonly getCoverage: Database.Statement;
  private readonly putCoverage: Database.Statement;
  private readonly removeCoverage: Database.Statement;
  private readonly selectHostIds: Database.Statement;

  /** `separator` is the platform's path separator; subtree deletion relies on it. */
  constructor(
    db: Database.Database,
    private readonly separator: string,
  ) {
    this.upsert = db.prepare(
      `INSERT INTO monitor_snapshot (host_id, path, is_dir, dev, ino, size, mtime_ms, birth_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (host_id, path) DO UPDATE SET is_dir = excluded.is_dir, dev = excluded.dev, ino = excluded.ino,
         size = excluded.size, mtime_ms = excluded.mtime_ms, birth_ms = excluded.birth_ms`,
    );
    this.remove = db.prepare('DELETE FROM monitor_snapshot WHERE host_id = ? AND path = ?');
    this.removeRange = db.prepare('DELETE FROM monitor_snapshot WHERE host_id = ? AND path >= ? AND path < ?');
    this.selectHost = db.prepare(
      'SELECT path, is_dir, dev, ino, size, mtime_ms, birth_ms FROM monitor_snapshot WHERE host_id = ?',
    );
    this.removeHost = db.prepare('DELETE FROM monitor_snapshot WHERE host_id = ?');
    this.getCoverage = db.prepare('SELECT coverage FROM monitor_coverage WHERE host_id = ?');
    this.putCoverage = db.prepare(
      `INSERT INTO monitor_coverage (host_id, coverage) VALUES (?, ?)
       ON CONFLICT (host_id) DO UPDATE SET coverage = excluded.coverage`,
    );
    this.removeCoverage = db.prepare('DELETE FROM monitor_coverage WHERE host_id = ?');
    this.selectHostIds = db.prepare(
      'SELECT host_id FROM monitor_coverage UNION SELECT DISTINCT host_id FROM monitor_snapshot',
    );
  }

  load(hostId: string): Map<string, SnapshotEntry> {
    const entries = new Map<string, SnapshotEntry>();
    for (const row of this.selectHost.iterate(hostId) as IterableIterator<SnapshotRow>) {
      entries.set(row.path, {
        dir: row.is_dir === 1,
        dev: row.dev,
        ino: row.ino,
        size: row.size,
        mtimeMs: row.mtime_ms,
        birthMs: row.birth_ms,
      });
    }
    return entries;
  }

  /** Hosts that have a snapshot. */
  hostIds(): string[] {
    return (this.selectHostIds.all() as Array<{ host_id: string }>).map((row) => row.host_id);
  }

  coverage(hostId: string): Coverage | null {
    const row = this.getCoverage.get(hostId) as { coverage: string } | undefined;
    return row ? (JSON.parse(row.coverage) as Coverage) : null;
  }

  /** Call inside the batch transaction. */
  apply(hostId: string, ops: readonly SnapshotOp[]): void {
    for (const change of ops) {
      if (change.op === 'upsert') {
        const e = change.entry;
        this.upsert.run(hostId, change.path, e.dir ? 1 : 0, e.dev, e.ino, e.size, e.mtimeMs, e.birthMs);
      } else {
        this.remove.run(hostId, change.path);
        if (change.op === 'deleteTree') {
          const prefix = change.path.endsWith(this.separator) ? change.path : change.path + this.separator;
          // Everything strictly under the folder: from "dir/" up to (not including) "dir0".
          const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
          this.removeRange.run(hostId, prefix, upper);
        }
      }
    }
  }

  /** Call inside a transaction. */
  setCoverage(hostId: string, coverage: Coverage): void {
    this.putCoverage.run(hostId, JSON.stringify(coverage));
  }

  /** Forgets a host's snapshot (host removed or disabled). Call inside a transaction. */
  dropHost(hostId: string): void {
    this.removeHost.run(hostId);
    this.removeCoverage.run(hostId);
  }
}
