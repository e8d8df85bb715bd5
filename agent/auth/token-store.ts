/**
 * Issued tokens in their own SQLite file, `<data>/auth.db` (better-sqlite3, WAL). Not in the
 * audit database (tokens must keep working when that one is unreachable) and not in lowdb
 * (a whole-file rewrite per token cannot sustain the token endpoint's rate). Only keyed hashes
 * are stored (keyed-hash.ts). Rows carry their family: the access and refresh tokens that
 * descend from one client-credentials grant, revoked together (RFC 9700 §4.14.2).
 *
 * The file stays bounded (docs/authentication.md): a family keeps the rows of its current
 * generation and of the one before it (rotation deletes older ones), its refresh tokens start
 * with the family's tag, whose keyed hash the `families` row holds, so an older refresh token
 * is still recognised as reuse; a client keeps at most MAX_LIVE_FAMILIES live families (the
 * least recently used is revoked) and MAX_REVOKED_FAMILIES revoked ones (older ones deleted).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DatabaseOpenError, openProblem } from '../store/database-open-error.js';
import { AccessTokenCache } from './access-token-cache.js';
import { syncWal, syncWalNow } from '../store/wal-sync.js';
import {
  migrate,
  TokenStoreVersionError,
  type FamilyRow,
  type NewFamily,
  type NewToken,
  type TokenRow,
} from './token-schema.js';

export {
  TokenStoreVersionError,
  type FamilyRow,
  type NewFamily,
  type NewToken,
  type TokenKind,
  type TokenRow,
} from './token-schema.js';

/** Live token families per client; a new one beyond this revokes the least recently used. */
export const MAX_LIVE_FAMILIES = 100;
/** Revoked families kept per client (they answer "revoked" in the log); older ones are deleted. */
export const MAX_REVOKED_FAMILIES = 100;

export interface TokenStoreOptions {
  file: string;
  /**
   * FULL (default) fsyncs the WAL at every commit, so a token handed out survives a power
   * loss; NORMAL survives a crash of the agent but may lose the last commits on power loss.
   */
  synchronous?: 'FULL' | 'NORMAL';
}

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
  private readonly accessCache = new AccessTokenCache();
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Built once: creating a transaction function per call costs more than running it. */
  private readonly inTransaction: (batch: PendingWrite[], outcomes: WriteOutcome[]) => void;
  private readonly insertAll: (tokens: readonly NewToken[]) => void;
  private readonly rotateOnce: (rotation: Rotation) => boolean;
  private readonly startFamilyOnce: (family: NewFamily, tokens: readonly NewToken[]) => void;

  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
    /** Whether a write is settled only once the WAL is fsynced (FULL durability). */
    private readonly durable: boolean,
  ) {
    this.statements = {
      insert: db.prepare<NewToken>(
        `INSERT INTO tokens (hash, kind, client_id, family_id, issued_at, expires_at, generation)
         VALUES (@hash, @kind, @client_id, @family_id, @issued_at, @expires_at, @generation)`,
      ),
      insertFamily: db.prepare<NewFamily>(
        `INSERT INTO families (family_id, client_id, tag_hash, created_at, used_at)
         VALUES (@family_id, @client_id, @tag_hash, @created_at, @created_at)`,
      ),
      family: db.prepare<[string], FamilyRow>('SELECT * FROM families WHERE family_id = ?'),
      familyByTag: db.prepare<[Buffer], FamilyRow>('SELECT * FROM families WHERE tag_hash = ?'),
      advanceFamily: db.prepare<{ family_id: string; generation: number; at: number; tag_hash: Buffer | null }>(
        `UPDATE families SET generation = @generation, used_at = @at, tag_hash = coalesce(tag_hash, @tag_hash)
         WHERE family_id = @family_id`,
      ),
      predecessorAccess: db.prepare<[string, number], Buffer>(
        `SELECT hash FROM tokens WHERE family_id = ? AND generation = ? AND kind = 'access' AND revoked_at IS NULL`,
      ),
      revokeGeneration: db.prepare<[number, string, number]>(
        `UPDATE tokens SET revoked_at = ? WHERE family_id = ? AND generation = ? AND kind = 'access'
         AND revoked_at IS NULL`,
      ),
      deleteOlderGenerations: db.prepare<[string, number]>('DELETE FROM tokens WHERE family_id = ? AND generation < ?'),
      leastUsedLive: db.prepare<[string, number], string>(
        `SELECT family_id FROM families WHERE client_id = ? AND revoked_at IS NULL
         ORDER BY used_at DESC LIMIT -1 OFFSET ?`,
      ),
      oldestRevoked: db.prepare<[string, number], string>(
        `SELECT family_id FROM families WHERE client_id = ? AND revoked_at IS NOT NULL
         ORDER BY revoked_at DESC LIMIT -1 OFFSET ?`,
      ),
      deleteFamilyTokens: db.prepare<[string]>('DELETE FROM tokens WHERE family_id = ?'),
      deleteFamily: db.prepare<[string]>('DELETE FROM families WHERE family_id = ?'),
      revokeFamilyRow: db.prepare<[number, string]>(
        'UPDATE families SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL',
      ),
      revokeClientFamilies: db.prepare<[number, string]>(
        'UPDATE families SET revoked_at = ? WHERE client_id = ? AND revoked_at IS NULL',
      ),
      purgeFamilies: db.prepare<{ keepUntil: number }>(
        'DELETE FROM families WHERE revoked_at IS NOT NULL AND revoked_at < @keepUntil',
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
            OR (revoked_at IS NOT NULL AND revoked_at < @keepUntil)
            OR (used_at IS NOT NULL AND used_at < @keepUntil)`,
      ),
    };
    // Inside `write`, each of these runs as a savepoint of the batch's transaction; alone, as a
    // transaction of its own (better-sqlite3 nests them that way).
    this.insertAll = db.transaction((tokens: readonly NewToken[]) => {
      for (const token of tokens) this.statements.insert.run(token);
    });
    this.rotateOnce = db.transaction((r: Rotation) => {
      const st = this.statements;
      if (st.markUsed.run(r.at, r.oldHash).changes !== 1) return false;
      // The predecessor access token stops working with its rotation; the generation before
      // it goes entirely (its refresh token is still known as reuse by the family's tag).
      for (const hash of st.predecessorAccess.pluck().all(r.familyId, r.generation)) this.accessCache.forget(hash);
      st.revokeGeneration.run(r.at, r.familyId, r.generation);
      st.deleteOlderGenerations.run(r.familyId, r.generation);
      for (const token of r.successors) st.insert.run(token);
      st.advanceFamily.run({ family_id: r.familyId, generation: r.generation + 1, at: r.at, tag_hash: r.tagHash });
      return true;
    });
    this.startFamilyOnce = db.transaction((family: NewFamily, tokens: readonly NewToken[]) => {
      const st = this.statements;
      st.insertFamily.run(family);
      for (const token of tokens) st.insert.run(token);
      const evicted = st.leastUsedLive.pluck().all(family.client_id, MAX_LIVE_FAMILIES);
      if (evicted.length > 0) {
        this.accessCache.clear();
        for (const id of evicted) this.revokeFamilyRows(id, family.created_at);
      }
      for (const id of st.oldestRevoked.pluck().all(family.client_id, MAX_REVOKED_FAMILIES)) {
        st.deleteFamilyTokens.run(id);
        st.deleteFamily.run(id);
      }
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

  /**
   * Starts a family with its first tokens (call inside `write`); beyond MAX_LIVE_FAMILIES the
   * client's least recently used family is revoked, beyond MAX_REVOKED_FAMILIES the oldest
   * revoked one deleted.
   */
  startFamily(family: NewFamily, tokens: readonly NewToken[]): void {
    this.startFamilyOnce(family, tokens);
  }

  find(hash: Buffer): TokenRow | undefined {
    return this.statements.find.get(hash);
  }

  family(familyId: string): FamilyRow | undefined {
    return this.statements.family.get(familyId);
  }

  familyByTag(tagHash: Buffer): FamilyRow | undefined {
    return this.statements.familyByTag.get(tagHash);
  }

  /** A cached access-token row by its cache key (see TokenService.checkAccessToken). */
  cachedAccess(key: string): TokenRow | undefined {
    return this.accessCache.get(key);
  }

  cacheAccess(key: string, row: TokenRow): void {
    this.accessCache.set(key, row);
  }

  /**
   * Rotation: marks the refresh token used, revokes the access token of its generation, deletes
   * the generations before, stores the successors and advances the family, in one transaction
   * (or savepoint, inside `write`). False, and nothing changed, when it was already used or
   * revoked.
   */
  rotate(rotation: Rotation): boolean {
    return this.rotateOnce(rotation);
  }

  private revokeFamilyRows(familyId: string, at: number): number {
    this.statements.revokeFamilyRow.run(at, familyId);
    return this.statements.revokeFamily.run(at, familyId).changes;
  }

  revokeFamily(familyId: string, at: number): number {
    this.accessCache.clear();
    return this.revokeFamilyRows(familyId, at);
  }

  revokeClient(clientId: string, at: number): number {
    this.accessCache.clear();
    this.statements.revokeClientFamilies.run(at, clientId);
    const changes = this.statements.revokeClient.run(at, clientId).changes;
    if (this.durable) syncWalNow(this.file); // a revocation must survive a power loss too
    return changes;
  }

  /**
   * Deletes access tokens expired before `keepUntil`, tokens revoked or used (rotated) before
   * it, and families revoked before it. A deleted token and a revoked one get the same answer
   * (401 / invalid_grant), so nothing changes for clients; a refresh token rotated away is still
   * recognised as reuse by its family's tag while the family lives.
   */
  purge(keepUntil: number): number {
    this.accessCache.clear();
    const tokens = this.statements.purge.run({ keepUntil }).changes;
    this.statements.purgeFamilies.run({ keepUntil });
    return tokens;
  }

  close(): void {
    if (this.pending.length > 0) this.flush(); // settle what is queued before closing
    if (this.db.open) this.db.close();
  }
}

export interface Rotation {
  oldHash: Buffer;
  at: number;
  familyId: string;
  /** The generation of the refresh token presented (the family's current one). */
  generation: number;
  /** The family's tag hash, for a family from schema 1 that had none yet. */
  tagHash: Buffer | null;
  successors: readonly NewToken[];
}
