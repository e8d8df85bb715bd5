/**
 * The layout of the token database (`<data>/auth.db`, token-store.ts): its rows and the
 * migrations that bring an older file to the current schema. A file from a newer Vigil is
 * refused rather than guessed at.
 */
import type Database from 'better-sqlite3';

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
  /** How many rotations the family had gone through when this token was issued. */
  generation: number;
}

export type NewToken = Pick<
  TokenRow,
  'hash' | 'kind' | 'client_id' | 'family_id' | 'issued_at' | 'expires_at' | 'generation'
>;

export interface FamilyRow {
  family_id: string;
  client_id: string;
  /** Keyed hash of the tag its refresh tokens start with; null for families from schema 1. */
  tag_hash: Buffer | null;
  /** The generation of its current tokens. */
  generation: number;
  created_at: number;
  /** Its creation or last rotation. */
  used_at: number;
  revoked_at: number | null;
}

export type NewFamily = Pick<FamilyRow, 'family_id' | 'client_id' | 'tag_hash' | 'created_at'>;

export const SCHEMA_VERSION = 2;

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
  2: `
    ALTER TABLE tokens ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX tokens_by_family_generation ON tokens (family_id, generation);
    CREATE TABLE families (
      family_id  TEXT    PRIMARY KEY,
      client_id  TEXT    NOT NULL,
      tag_hash   BLOB    UNIQUE,
      generation INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      used_at    INTEGER NOT NULL,
      revoked_at INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX families_by_client ON families (client_id, revoked_at, used_at);
    INSERT INTO families (family_id, client_id, created_at, used_at, revoked_at)
      SELECT family_id, min(client_id), min(issued_at), max(issued_at),
             CASE WHEN sum(revoked_at IS NULL) = 0 THEN max(revoked_at) END
      FROM tokens GROUP BY family_id;`,
};

/** The auth database was written by a newer Vigil; refusing beats guessing its layout. */
export class TokenStoreVersionError extends Error {
  constructor(file: string, found: number) {
    super(`the token database ${file} has schema version ${found}, newer than this agent knows (${SCHEMA_VERSION})`);
    this.name = 'TokenStoreVersionError';
  }
}

export function migrate(db: Database.Database, file: string): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) throw new TokenStoreVersionError(file, current);
  for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
