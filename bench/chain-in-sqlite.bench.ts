/**
 * The record chain's floor (docs/benchmarks.md, "The chain's floor"; docs/integrity.md): what
 * `vigil_chain` costs a row inside SQLite with no JavaScript around it, and how much of that is
 * SHA-256 itself, which the chain's definition (SHA-256 of the previous value and the record,
 * record after record) makes sequential. A C++ driver (chain-in-sqlite/insert-rows.cc) runs the
 * store's 32-row INSERT into an in-memory database with `vigil_chain(…)` and with `zeroblob(32)`,
 * slice by slice in alternating order, then the function's two parts alone over the same
 * records. SQLite is the amalgamation better-sqlite3 ships, built with its build's speed-relevant
 * options; the chain's sources are the addon's (native/src/chain/), at the addon's -O3.
 * bench/pipeline-ingest.ts and chain-cost.bench.ts give the chain's share of the whole pipeline;
 * this gives the part of it no change to the implementation can remove.
 *
 *   npx tsx bench/chain-in-sqlite.bench.ts    (SLICES=20000 ROUNDS=5; needs gcc, g++ and OpenSSL's
 *   headers: Debian libssl-dev)
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SLICES = Number(process.env['SLICES'] ?? 20_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);
const REPO = path.join(import.meta.dirname, '..');
const SQLITE_DIR = path.join(
  path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  'deps',
  'sqlite3',
);
/** better-sqlite3's own build options that change how fast SQLite runs (its deps/defines.gypi). */
const SQLITE_OPTIONS = [
  '-DSQLITE_DEFAULT_MEMSTATUS=0',
  '-DSQLITE_THREADSAFE=2',
  '-DSQLITE_DQS=0',
  '-DSQLITE_OMIT_DEPRECATED',
  '-DSQLITE_OMIT_PROGRESS_CALLBACK',
  '-DSQLITE_OMIT_SHARED_CACHE',
  '-DSQLITE_OMIT_LOAD_EXTENSION',
];

interface Result {
  rows: number;
  rounds: number;
  insertChainedNs: number;
  insertUnchainedNs: number;
  chainNs: number;
  jsonNs: number;
  sha256Ns: number;
  recordBytes: number;
}

async function build(scratch: string): Promise<string> {
  const sqlite = path.join(scratch, 'sqlite3.o');
  await run('gcc', ['-c', '-O3', ...SQLITE_OPTIONS, path.join(SQLITE_DIR, 'sqlite3.c'), '-o', sqlite]);
  const driver = path.join(scratch, 'insert-rows');
  const chain = path.join(REPO, 'native', 'src', 'chain');
  await run('g++', [
    '-std=c++17',
    '-O3',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-DSQLITE_CORE',
    `-I${SQLITE_DIR}`,
    `-I${chain}`,
    path.join(import.meta.dirname, 'chain-in-sqlite', 'insert-rows.cc'),
    path.join(chain, 'sqlite_chain.cc'),
    path.join(chain, 'canonical_json.cc'),
    sqlite,
    '-lcrypto',
    '-lm',
    '-o',
    driver,
  ]);
  return driver;
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-chain-in-sqlite-'));
try {
  const driver = await build(scratch);
  const { stdout } = await run(driver, [String(SLICES), String(ROUNDS)]);
  const r = JSON.parse(stdout) as Result;
  const ns = (x: number): string => `${x.toFixed(0)} ns`;
  const share = (x: number): string => `${((x / r.chainNs) * 100).toFixed(0)} %`;
  console.log(`### The chain's floor (${new Date().toISOString().slice(0, 16)}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${r.rows.toLocaleString('en-US')} rows a variant a round, ${r.rounds} rounds, medians)

The store's 32-row INSERT in SQLite alone, with \`vigil_chain(…)\` and with \`zeroblob(32)\`; a canonical record of ${r.recordBytes} bytes (the pipeline benchmark's file records).

| Measure | Per row |
|---|---|
| The INSERT with the chain | ${ns(r.insertChainedNs)} |
| The INSERT without it | ${ns(r.insertUnchainedNs)} |
| **The chain's cost in SQLite** | **${ns(r.chainNs)}** |
| Writing the canonical JSON alone | ${ns(r.jsonNs)} (${share(r.jsonNs)} of it) |
| SHA-256 of the previous value and the record alone | ${ns(r.sha256Ns)} (${share(r.sha256Ns)} of it) |
`);
  console.log(JSON.stringify(r));
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
