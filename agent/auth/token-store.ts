/**
 * Issued tokens in their own SQLite file, `<data>/auth.db` (better-sqlite3, WAL). Not in the
 * audit database (tokens must keep working when that one is unreachable) and not in lowdb
 * (a whole-file rewrite per token cannot sustain the token endpoint's rate). Only keyed hashes
 * are stored (keyed-hash.ts). Rows carry their family: the access and refresh tokens that
 * descend from one client-credentials grant, revoked together (RFC 9700 §4.14.2).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseOpenError, openProblem } from '../store/database-open-error.js';
import { syncWal, syncWalNow } from '../store/wal-sync.js';

export type TokenKind = 'access' | 'refresh';

export interface TokenRow {
  hash: Buffer;
  kind: TokenKind;
  client_id: string;
  family_id: string;
  issued_at: number;
  /** null: never expires (refresh tokens). */
  expires_at: number | null;
  /** Refresh tokens: when it was exchanged (rotated). A second use is reuse. */
  used_at: number | null;
  revoked_at: number | null;
}

export type NewToken = Pick<TokenRow, 'hash' | 'kind' | 'client_id' | 'family_id' | 'issued_at' | 'expires_at'>;

export interface TokenStoreOptions {
  file: string;
  /**
   * FULL (default) fsyncs the WAL at every commit, so a token handed out survives a power
   * loss; NORMAL survives a crash of the agent but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
}

const SCHEMA_VERSION = 1;

const MIGRATIONS: Record<number, string> = {
  1: `
    CREATE TABLE tokens (
      hash       BLOB    PRIMARY KEY,
      kind       TEXT    NOT NULL CHECK (kind IN ('access', 'refresh')),
      client_id  TEXT    NOT NULL,
      family_id  TEXT    NOT NULL,
      issued_at  INTEGER NOT NULL,
      expires_at INTEGER,
      used_at    INTEGER,
      revoked_at INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX tokens_by_family ON tokens (family_id);
    CREATE INDEX tokens_by_client ON tokens (client_id);`,
};

/** The auth database was written by a newer Vigil; refusing beats guessing its layout. */
export class TokenStoreVersionError extends Error {
  constructor(file: string, found: number) {
    super(`the token database ${file} has schema version ${found}, newer than this agent knows (${SCHEMA_VERSION})`);
    this.name = 'TokenStoreVersionError';
  }
}

/** Bound of the access-token lookup cache; it is simply emptied when full. */
const CACHE_LIMIT = 10_000;

type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface PendingWrite {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class TokenStore {
  private readonly statements;
  /**
   * Access-token rows by hash. The agent is the only writer of auth.db while it runs (the
   * agent lock keeps admin commands out), and every statement that revokes or deletes rows
   * empties this cache synchronously, so a revocation still applies to the very next request.
   */
  private readonly accessCache = new Map<string, TokenRow>();
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Built once: creating a transaction function per call costs more than running it. */
  private readonly inTransaction: (batch: PendingWrite[], outcomes: WriteOutcome[]) => void;
  private readonly insertAll: (tokens: readonly NewToken[]) => void;
  private readonly rotateOnce: (oldHash: Buffer, at: number, successors: readonly NewToken[]) => boolean;

  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
    /** Whether a write is settled only once the WAL is fsynced (FULL durability). */
    private readonly durable: boolean,
  ) {
    this.statements = {
      insert: db.prepare<NewToken>(
        `INSERT INTO tokens (hash, kind, client_id, family_id, issued_at, expires_at)
         VALUES (@hash, @kind, @client_id, @family_id, @issued_at, @expires_at)`,
      ),
      find: db.prepare<[Buffer], TokenRow>('SELECT * FROM tokens WHERE hash = ?'),
      markUsed: db.prepare<[number, Buffer]>(
        'UPDATE tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND revoked_at IS NULL',
      ),
      revokeFamily: db.prepare<[number, string]>(
        'UPDATE tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL',
      ),
      revokeClient: db.prepare<[number, string]>(
        'UPDATE tokens SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL',
      ),
      purge: db.prepare<{ keepUntil: number }>(
        `DELETE FROM tokens
         WHERE (kind = 'access' AND expires_at IS NOT NULL AND expires_at < @keepUntil)
            OR (revoked_at IS NOT NULL AND revoked_at < @keepUntil)`,
      ),
    };
    // Inside `write`, each of these runs as a savepoint of the batch's transaction; alone, as a
    // transaction of its own (better-sqlite3 nests them that way).
    this.insertAll = db.transaction((tokens: readonly NewToken[]) => {
      for (const token of tokens) this.statements.insert.run(token);
    });
    this.rotateOnce = db.transaction((oldHash: Buffer, at: number, successors: readonly NewToken[]) => {
      if (this.statements.markUsed.run(at, oldHash).changes !== 1) return false;
      for (const token of successors) this.statements.insert.run(token);
      return true;
    });
    this.inTransaction = db.transaction((batch: PendingWrite[], outcomes: WriteOutcome[]) => {
      for (const item of batch) {
        try {
          outcomes.push({ ok: true, value: item.run() });
        } catch (error) {
          outcomes.push({ ok: false, error });
        }
      }
    });
  }

  static open(options: TokenStoreOptions): TokenStore {
    fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
    let db: Database.Database | null = null;
    try {
      db = new Database(options.file);
      fs.chmodSync(options.file, 0o600);
      db.pragma('journal_mode = WAL');
      // Commits are made durable by syncWal() off the event loop (wal-sync.ts), not inside COMMIT.
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      migrate(db, options.file);
    } catch (error) {
      db?.close();
      if (error instanceof TokenStoreVersionError) throw error;
      throw new DatabaseOpenError(
        options.file,
        'the token database',
        openProblem(error),
        'restore it from a backup, or move it away: issued access and refresh tokens are then gone and clients enrol again with a new secret.',
      );
    }
    return new TokenStore(options.file, db, (options.synchronous ?? 'FULL') === 'FULL');
  }

  /**
   * Group commit: `operation` runs inside the next shared write transaction, together with the
   * operations of every request that arrived in the same turn of the event loop, and the
   * promise settles once that transaction is committed and its WAL fsynced (wal-sync.ts). One
   * fsync per batch instead of one per token is what lets the token endpoint issue well over
   * 1,000 durable tokens a second. Operations are built from `insert` and `rotate`, which run
   * as savepoints there, so one failing operation does not undo the others.
   */
  write<T>(operation: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: operation, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    const outcomes: WriteOutcome[] = [];
    try {
      this.inTransaction(batch, outcomes);
    } catch (error) {
      for (const item of batch) item.reject(error); // the commit itself failed: nothing was stored
      return;
    }
    const settle = (): void =>
      batch.forEach((item, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.error);
      });
    if (!this.durable) return settle();
    // Answered only once on disk; meanwhile the next batch is already being taken in.
    syncWal(this.file).then(settle, (error: unknown) => {
      for (const item of batch) item.reject(error);
    });
  }

  /** Stores tokens (call inside `write`, or alone: then in a transaction of their own). */
  insert(tokens: readonly NewToken[]): void {
    this.insertAll(tokens);
  }

  find(hash: Buffer): TokenRow | undefined {
    return this.statements.find.get(hash);
  }

  /** A cached access-token row by its cache key (see TokenService.checkAccessToken). */
  cachedAccess(key: string): TokenRow | undefined {
    return this.accessCache.get(key);
  }

  cacheAccess(key: string, row: TokenRow): void {
    if (this.accessCache.size >= CACHE_LIMIT) this.accessCache.clear();
    this.accessCache.set(key, row);
  }

  /**
   * Rotation: marks the refresh token used and stores its successors, in one transaction (or
   * savepoint, inside `write`). False, and nothing stored, when it was already used or revoked.
   */
  rotate(oldHash: Buffer, at: number, successors: readonly NewToken[]): boolean {
    return this.rotateOnce(oldHash, at, successors);
  }

  revokeFamily(familyId: string, at: number): number {
    this.accessCache.clear();
    return this.statements.revokeFamily.run(at, familyId).changes;
  }

  revokeClient(clientId: string, at: number): number {
    this.accessCache.clear();
    const changes = this.statements.revokeClient.run(at, clientId).changes;
    if (this.durable) syncWalNow(this.file); // a revocation must survive a power loss too
    return changes;
  }

  /**
   * Deletes access tokens expired before `keepUntil` and tokens revoked before it. A deleted
   * token and a revoked one get the same answer (401 / invalid_grant), so nothing changes for
   * clients; used refresh tokens stay so that their reuse is still detected.
   */
  purge(keepUntil: number): number {
    this.accessCache.clear();
    return this.statements.purge.run({ keepUntil }).changes;
  }

  close(): void {
    if (this.pending.length > 0) this.flush(); // settle what is queued before closing
    if (this.db.open) this.db.close();
  }
}

function migrate(db: Database.Database, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new TokenStoreVersionError(file, current);
  for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
