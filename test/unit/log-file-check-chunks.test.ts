/**
 * `vigil verify --logs` reads a log file a chunk at a time (agent/integrity/log-file-check.ts):
 * where the chunks end, whether the sidecar's entries arrive before or after the lines they
 * cover, and whether the line digests come from the addon or from JavaScript must not change
 * the report, for an intact file and for each kind of tampering.
 */
import crypto from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogFileCheck, type LogFileResult } from '../../agent/integrity/log-file-check.js';
import {
  encodeDigests,
  headerLine,
  nextLinesChain,
  signatureMessage,
} from '../../agent/integrity/log-sidecar-format.js';
import { GENESIS } from '../../agent/store/record-chain.js';

const NAME = 'ws42_Log_20261120.tsv';
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');

function line(i: number): string {
  return `2026-11-20T08:00:${String(i % 60).padStart(2, '0')}.000Z\tWS42\t1000\tUpd\tFILE\t/home/alice/é-${i}-${'x'.repeat(i % 41)}\n`;
}

/** A log file of `count` lines written in batches of the given sizes, and its signed sidecar. */
function written(count: number, batchSizes: number[]): { file: Buffer; sidecar: string } {
  const lines = Array.from({ length: count }, (_, i) => Buffer.from(line(i)));
  let sidecar = headerLine(NAME);
  let chain = GENESIS;
  let offset = 0;
  for (let at = 0, b = 0; at < count; b++) {
    const take = Math.min(count - at, batchSizes[b % batchSizes.length]!);
    const bytes = Buffer.concat(lines.slice(at, at + take));
    chain = nextLinesChain(chain, bytes);
    offset += bytes.length;
    at += take;
    sidecar += JSON.stringify({ line: at, offset, chain: chain.toString('hex'), digests: encodeDigests(bytes) }) + '\n';
  }
  const hex = chain.toString('hex');
  const signature = crypto.sign(null, signatureMessage(NAME, count, hex, 1), privateKey).toString('base64');
  sidecar += JSON.stringify({ signed: count, chain: hex, time: 1, signature }) + '\n';
  return { file: Buffer.concat(lines), sidecar };
}

/** The file's lines (with their line feeds) changed by `edit`. */
function tampered(file: Buffer, edit: (lines: string[]) => string[]): Buffer {
  const lines = file.toString('utf8').split(/(?<=\n)/);
  return Buffer.from(edit(lines).join(''));
}

const TAMPERINGS: Record<string, (file: Buffer) => Buffer> = {
  intact: (file) => file,
  changed: (file) => tampered(file, (l) => l.map((x, i) => (i === 57 ? x.replace('Upd', 'Del') : x))),
  removed: (file) => tampered(file, (l) => l.filter((_, i) => i !== 120)),
  inserted: (file) => tampered(file, (l) => [...l.slice(0, 33), line(9999), ...l.slice(33)]),
  reordered: (file) => tampered(file, (l) => [...l.slice(0, 200), l[201]!, l[200]!, ...l.slice(202)]),
  truncatedInsideALine: (file) => file.subarray(0, file.length - 30),
  truncated: (file) => tampered(file, (l) => l.slice(0, 250)),
};

/** Feeds `file` in chunks of the given sizes (repeated), the sidecar first or after the bytes it covers. */
function check(
  Check: typeof LogFileCheck,
  file: Buffer,
  sidecar: string,
  sizes: number[],
  sidecarLate = false,
): LogFileResult {
  const c = new Check(NAME, NAME, publicKey);
  const entries = sidecar.split(/(?<=\n)/);
  if (!sidecarLate) c.addSidecarText(sidecar);
  else c.addSidecarText(entries.shift()!);
  for (let at = 0, k = 0; at < file.length; k++) {
    const size = Math.max(1, sizes[k % sizes.length]!);
    c.addFileBytes(Buffer.from(file.subarray(at, at + size))); // a fresh chunk, as from a read
    at += size;
    // Following the agent: an entry arrives once the lines it covers were read.
    if (sidecarLate && k % 3 === 2) c.addSidecarText(entries.splice(0, 2).join(''));
  }
  if (sidecarLate) c.addSidecarText(entries.join(''));
  return c.finish();
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('a log file checked a chunk at a time', () => {
  const { file, sidecar } = written(300, [1, 7, 50, 3, 100]);

  for (const [kind, tamper] of Object.entries(TAMPERINGS)) {
    it(`reports the same whatever the chunks (${kind})`, () => {
      const bytes = tamper(file);
      const whole = check(LogFileCheck, bytes, sidecar, [bytes.length]);
      if (kind === 'intact') expect(whole.problems).toEqual([]);
      else expect(whole.problems.length).toBeGreaterThan(0);
      expect(check(LogFileCheck, bytes, sidecar, [1])).toEqual(whole);
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 }),
          fc.boolean(),
          (sizes, late) => {
            expect(check(LogFileCheck, bytes, sidecar, sizes, late)).toEqual(whole);
          },
        ),
        { numRuns: 40 },
      );
    });
  }

  it('names each tampering by its kind and line', () => {
    const kinds = (tamper: (f: Buffer) => Buffer): Array<[string, number | undefined]> =>
      check(LogFileCheck, tamper(file), sidecar, [4096]).problems.map((p) => [p.kind, p.line]);
    expect(kinds(TAMPERINGS['changed']!)).toEqual([['changed', 58]]);
    expect(kinds(TAMPERINGS['removed']!)).toEqual([['removed', 121]]);
    expect(kinds(TAMPERINGS['inserted']!)).toEqual([['inserted', 34]]);
    expect(kinds(TAMPERINGS['reordered']!).map(([kind]) => kind)).toEqual(['reordered', 'reordered']);
    expect(kinds(TAMPERINGS['truncated']!)).toEqual([['truncated', 251]]);
    expect(kinds(TAMPERINGS['truncatedInsideALine']!)).toEqual([['truncated', 300]]);
  });

  it('reports the same with the line digests computed in JavaScript (no addon)', async () => {
    vi.stubEnv('VIGIL_CHAIN_ADDON', 'off');
    vi.resetModules();
    const withoutAddon = await import('../../agent/integrity/log-file-check.js');
    const { chainAddon } = await import('../../agent/store/chain-addon.js');
    expect(chainAddon()).toBeNull();
    for (const tamper of Object.values(TAMPERINGS)) {
      const bytes = tamper(file);
      expect(check(withoutAddon.LogFileCheck, bytes, sidecar, [1000, 13])).toEqual(
        check(LogFileCheck, bytes, sidecar, [bytes.length]),
      );
    }
  });
});
