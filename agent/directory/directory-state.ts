/**
 * What the directory source committed last, per domain, in the audit database: the accesslog
 * cursor (`mode` `accesslog`) or the snapshot of every object (`mode` `snapshot`), plus the
 * scope it was taken with (server and base DN; another scope takes a new baseline). Written only
 * inside the pipeline's transaction (a submission's `commitWith`), so after a crash or a stop the
 * state matches exactly the records that were committed: the next start records the rest, once.
 */
import type Database from 'better-sqlite3';
import type { ObjectVersion, SnapshotObject } from './snapshot-reader.js';

export type DirectoryMode = 'accesslog' | 'snapshot';

export interface DirectoryCursor {
  scope: string;
  mode: DirectoryMode;
  cursor: string;
}

export type SnapshotOp = { op: 'put'; object: SnapshotObject } | { op: 'delete'; key: string };

interface SnapshotRow {
  entry_key: string;
  dn: string;
  version: string;
  attributes: string;
}

function objectOf(row: SnapshotRow): SnapshotObject {
  const attributes = JSON.parse(row.attributes) as SnapshotObject['attributes'];
  return { key: row.entry_key, dn: row.dn, version: row.version, attributes };
}

export class DirectoryStateTable {
  private readonly getCursor: Database.Statement;
  private readonly putCursor: Database.Statement;
  private readonly selectSnapshot: Database.Statement;
  private readonly selectVersions: Database.Statement;
  private readonly selectObject: Database.Statement;
  private readonly putObject: Database.Statement;
  private readonly deleteObject: Database.Statement;
  private readonly dropCursor: Database.Statement;
  private readonly dropSnapshot: Database.Statement;
  private readonly selectDomainIds: Database.Statement;

  constructor(db: Database.Database) {
    this.getCursor = db.prepare('SELECT scope, mode, cursor FROM directory_cursor WHERE domain_id = ?');
    this.putCursor = db.prepare(
      `INSERT INTO directory_cursor (domain_id, scope, mode, cursor) VALUES (?, ?, ?, ?)
       ON CONFLICT (domain_id) DO UPDATE SET scope = excluded.scope, mode = excluded.mode, cursor = excluded.cursor`,
    );
    this.selectSnapshot = db.prepare(
      'SELECT entry_key, dn, version, attributes FROM directory_snapshot WHERE domain_id = ?',
    );
    this.selectVersions = db.prepare('SELECT entry_key, dn, version FROM directory_snapshot WHERE domain_id = ?');
    this.selectObject = db.prepare(
      'SELECT entry_key, dn, version, attributes FROM directory_snapshot WHERE domain_id = ? AND entry_key = ?',
    );
    this.putObject = db.prepare(
      `INSERT INTO directory_snapshot (domain_id, entry_key, dn, version, attributes) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (domain_id, entry_key) DO UPDATE SET dn = excluded.dn, version = excluded.version,
         attributes = excluded.attributes`,
    );
    this.deleteObject = db.prepare('DELETE FROM directory_snapshot WHERE domain_id = ? AND entry_key = ?');
    this.dropCursor = db.prepare('DELETE FROM directory_cursor WHERE domain_id = ?');
    this.dropSnapshot = db.prepare('DELETE FROM directory_snapshot WHERE domain_id = ?');
    this.selectDomainIds = db.prepare('SELECT domain_id FROM directory_cursor');
  }

  cursor(domainId: string): DirectoryCursor | null {
    return (this.getCursor.get(domainId) as DirectoryCursor | undefined) ?? null;
  }

  snapshot(domainId: string): Map<string, SnapshotObject> {
    const rows = this.selectSnapshot.all(domainId) as SnapshotRow[];
    return new Map(rows.map((r) => [r.entry_key, objectOf(r)]));
  }

  /** Each saved object's identity, DN and version, without its attributes. */
  versions(domainId: string): Map<string, ObjectVersion> {
    const rows = this.selectVersions.all(domainId) as Array<Omit<SnapshotRow, 'attributes'>>;
    return new Map(rows.map((r) => [r.entry_key, { key: r.entry_key, dn: r.dn, version: r.version }]));
  }

  /** The saved objects with these keys (those that are saved). */
  objects(domainId: string, keys: readonly string[]): Map<string, SnapshotObject> {
    const out = new Map<string, SnapshotObject>();
    for (const key of keys) {
      const row = this.selectObject.get(domainId, key) as SnapshotRow | undefined;
      if (row) out.set(key, objectOf(row));
    }
    return out;
  }

  /** Inside the pipeline's transaction only. */
  save(domainId: string, cursor: DirectoryCursor, ops: readonly SnapshotOp[] = [], replaceSnapshot = false): void {
    if (replaceSnapshot) this.dropSnapshot.run(domainId);
    for (const op of ops) {
      if (op.op === 'delete') this.deleteObject.run(domainId, op.key);
      else {
        const { key, dn, version, attributes } = op.object;
        this.putObject.run(domainId, key, dn, version, JSON.stringify(attributes));
      }
    }
    this.putCursor.run(domainId, cursor.scope, cursor.mode, cursor.cursor);
  }

  /** Forgets a domain: its next monitoring starts from a fresh baseline. */
  drop(domainId: string): void {
    this.dropCursor.run(domainId);
    this.dropSnapshot.run(domainId);
  }

  domainIds(): string[] {
    return (this.selectDomainIds.all() as Array<{ domain_id: string }>).map((r) => r.domain_id);
  }
}
