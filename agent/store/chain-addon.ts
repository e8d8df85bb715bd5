/**
 * The record chain's native addon (native/src/chain/), when it was built: `npm install` builds
 * it on every platform with a compiler (native/install.mjs). It hashes batches for `vigil
 * verify` (chain_batch.cc) and holds the SQLite extension with which the store's inserts chain
 * each row (sqlite_chain.cc, `loadChainFunction`). Without it the chain is computed by
 * node:crypto, record by record: the same values, at several times the cost per record
 * (docs/benchmarks.md, "Tamper evidence").
 *
 * VIGIL_CHAIN_ADDON=off leaves the addon unused (to compare both, and to test the fallback).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

export interface ChainAddon {
  /** The chain values of `canonicals` in order, 32 bytes each, `previous` before the first. */
  chainBatch(previous: Buffer, canonicals: readonly string[]): Buffer;
  /** The chain values of `count` canonical records in one UTF-8 text, separated by line feeds; null when it holds another count. */
  chainJoined(previous: Buffer, text: Buffer, count: number): Buffer | null;
  /**
   * The whole lines of `bytes` from `from` (each ending with a line feed), up to as many as
   * `digests` and `ends` hold: each line's digest (log-sidecar-format.ts `lineDigest`) and the
   * offset just past its line feed. Returns how many lines. Absent from an addon built before it.
   */
  lineDigests?(bytes: Uint8Array, from: number, digests: Float64Array, ends: Float64Array): number;
}

const ADDON_RELATIVE = path.join('native', 'build', 'Release', 'vigil_chain.node');

/**
 * The repository root (or the unpacked app folder) is a few levels above this file, both for
 * the TypeScript sources and for dist/ (the same search as the fanotify addon's).
 */
function candidates(fromDir: string): string[] {
  const out: string[] = [];
  for (let dir = fromDir, depth = 0; depth < 6; dir = path.dirname(dir), depth++) {
    const file = path.join(dir, ADDON_RELATIVE);
    out.push(file.replace(`app.asar${path.sep}`, `app.asar.unpacked${path.sep}`), file);
    if (path.dirname(dir) === dir) break;
  }
  return out;
}

let loaded: ChainAddon | null | undefined;
let loadedFrom: string | null = null;

/** The addon, or null when it is absent, fails to load, or is turned off. */
export function chainAddon(): ChainAddon | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  if (process.env['VIGIL_CHAIN_ADDON'] === 'off') return loaded;
  const file = candidates(path.dirname(fileURLToPath(import.meta.url))).find((f) => fs.existsSync(f));
  if (!file) return loaded;
  try {
    const addon = createRequire(import.meta.url)(file) as Partial<ChainAddon>;
    if (typeof addon.chainBatch === 'function' && typeof addon.chainJoined === 'function') {
      loaded = addon as ChainAddon;
      loadedFrom = file;
    }
  } catch {
    // A build for another Node ABI or platform: the JavaScript path computes the same chain.
  }
  return loaded;
}

/**
 * Adds the addon's SQL function `vigil_chain` (native/src/chain/sqlite_chain.cc) to `db`, which
 * the audit store's inserts call to chain each row from the values SQLite holds; false when the
 * addon is absent or turned off, or was built without it (then the store hashes in JavaScript).
 * The addon is loaded by Node first, so SQLite's own load of the same file finds it in memory.
 * Loading an extension through the C API does not enable SQL's load_extension().
 */
export function loadChainFunction(db: Database.Database): boolean {
  if (!chainAddon() || loadedFrom === null) return false;
  try {
    // better-sqlite3 takes the entry point as a second argument; its types (9.6) do not say so.
    (db.loadExtension as (file: string, entryPoint: string) => void)(loadedFrom, 'sqlite3_vigilchain_init');
    return true;
  } catch {
    return false;
  }
}
