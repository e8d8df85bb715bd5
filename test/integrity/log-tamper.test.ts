/**
 * Tamper evidence of log files (docs/integrity.md, "Log files"): `vigil verify --logs`, run as the
 * real command on a copy of the logs folder with the public key alone, passes untouched files
 * (plain and zipped) and names each kind of tampering at its line: a flipped byte, a deleted
 * line, an inserted or duplicated line, two lines swapped, a cut file, an altered signature, and
 * an edit whose sidecar was recomputed by someone without the key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS, nextChain } from '../../agent/store/record-chain.js';
import { encodeDigests } from '../../agent/integrity/log-sidecar-format.js';
import { runVigil } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { items, logRig, T0, type LogRig } from './log-rig.js';

interface Report {
  ok: boolean;
  verified: Array<{ file: string; from: number; to: number }>;
  problems: Array<{ file?: string; line?: number; kind: string; detail: string }>;
}

const FILE = 'desk-01_Log_20260310.tsv';
const DAY = 86_400_000;
let rig: LogRig;
let pem: string;

beforeAll(async () => {
  rig = await logRig();
  const output = rig.output();
  // 61 lines in batches of different sizes (a header row, then 60 records), signed midway
  // at a checkpoint and again when the file is closed.
  rig.commit(output, items(20));
  rig.commit(output, items(1));
  rig.commit(output, items(19));
  output.sign(T0 + 1000);
  rig.commit(output, items(20));
  // The next day: yesterday's file is closed (signed) and zipped; today's has a few lines.
  rig.clock.now = T0 + DAY;
  rig.commit(output, items(5, T0 + DAY));
  await output.maintain();
  await output.stop();
  pem = path.join(rig.root, 'public.pem');
  fs.writeFileSync(pem, rig.key.publicKeyPem);
});
afterAll(() => rig.close());

/** A copy of the rig's logs folder. */
function copyOfLogs(): string {
  const copy = makeTempDir();
  for (const name of fs.readdirSync(rig.dir)) fs.copyFileSync(path.join(rig.dir, name), path.join(copy, name));
  return copy;
}

async function verify(folder: string, expectedCode: number): Promise<Report> {
  const run = await runVigil(['verify', '--logs', folder, '--public-key', pem]);
  expect(run.stderr).toBe('');
  expect(run.code, run.stdout).toBe(expectedCode);
  return JSON.parse(run.stdout) as Report;
}

/** A fresh unzipped copy of day one's file and its sidecar (written the same way, not zipped). */
async function dayOne(): Promise<{ folder: string; file: string; lines: string[] }> {
  const folder = makeTempDir();
  const other = await logRig();
  const output = other.output();
  other.commit(output, items(20));
  other.commit(output, items(1));
  other.commit(output, items(19));
  output.sign(T0 + 1000);
  other.commit(output, items(20));
  await output.stop();
  other.close();
  fs.writeFileSync(pem, other.key.publicKeyPem);
  for (const name of fs.readdirSync(other.dir)) fs.copyFileSync(path.join(other.dir, name), path.join(folder, name));
  const file = path.join(folder, FILE);
  return { folder, file, lines: fs.readFileSync(file, 'utf8').split('\n').slice(0, -1) };
}

function write(file: string, lines: string[]): void {
  fs.writeFileSync(file, lines.map((l) => l + '\n').join(''));
}

describe('vigil verify --logs', () => {
  it('passes untouched log files, a zipped day and the open day, with the public key alone', async () => {
    const folder = copyOfLogs();
    expect(fs.readdirSync(folder).sort()).toEqual([
      `${FILE}.zip`,
      'desk-01_Log_20260311.tsv',
      'desk-01_Log_20260311.tsv.sig',
    ]);
    const report = await verify(folder, 0);
    expect(report).toEqual({
      ok: true,
      verified: [
        { file: `${FILE}.zip`, from: 1, to: 61 },
        { file: 'desk-01_Log_20260311.tsv', from: 1, to: 6 },
      ],
      problems: [],
    });
  });

  it('names a line one byte of which was flipped as changed, at that line', async () => {
    const { folder, file, lines } = await dayOne();
    const line = 31;
    const bytes = fs.readFileSync(file);
    const lineStart = Buffer.byteLength(lines.slice(0, line - 1).join('\n') + '\n');
    const at = bytes.indexOf('file-', lineStart);
    bytes[at] = bytes[at]! ^ 0x20; // "f" becomes "F"
    fs.writeFileSync(file, bytes);
    const report = await verify(folder, 1);
    expect(report.problems).toEqual([expect.objectContaining({ file: FILE, line, kind: 'changed' })]);
    expect(report.verified).toEqual([
      { file: FILE, from: 1, to: line - 1 },
      { file: FILE, from: line + 1, to: 61 },
    ]);
  });

  it('names a deleted line as removed', async () => {
    const { folder, file, lines } = await dayOne();
    write(file, [...lines.slice(0, 29), ...lines.slice(30)]);
    const report = await verify(folder, 1);
    expect(report.problems).toEqual([expect.objectContaining({ file: FILE, line: 30, kind: 'removed' })]);
  });

  it('names an inserted line and a duplicated line as inserted', async () => {
    const { folder, file, lines } = await dayOne();
    const forged = lines[10]!.replace('Add', 'Del');
    write(file, [...lines.slice(0, 12), forged, ...lines.slice(12, 40), lines[40]!, ...lines.slice(40)]);
    const report = await verify(folder, 1);
    expect(report.problems).toEqual([
      expect.objectContaining({ file: FILE, line: 13, kind: 'inserted' }),
      expect.objectContaining({ file: FILE, line: 43, kind: 'inserted' }),
    ]);
  });

  it('names two swapped lines as reordered', async () => {
    const { folder, file, lines } = await dayOne();
    const swapped = [...lines];
    [swapped[9], swapped[10]] = [swapped[10]!, swapped[9]!];
    write(file, swapped);
    const report = await verify(folder, 1);
    expect(report.problems.map((p) => [p.line, p.kind])).toEqual([
      [10, 'reordered'],
      [11, 'reordered'],
    ]);
  });

  it('names a cut file as truncated, also when it is cut inside a line', async () => {
    const { folder, file, lines } = await dayOne();
    write(file, lines.slice(0, 50));
    expect((await verify(folder, 1)).problems).toEqual([
      expect.objectContaining({ file: FILE, line: 51, kind: 'truncated' }),
    ]);
    fs.truncateSync(file, fs.statSync(file).size - 7);
    expect((await verify(folder, 1)).problems).toEqual([
      expect.objectContaining({ file: FILE, line: 50, kind: 'truncated' }),
    ]);
  });

  it('names an altered signature', async () => {
    const { folder, file } = await dayOne();
    const sidecar = `${file}.sig`;
    const text = fs.readFileSync(sidecar, 'utf8').replace(/"time":(\d+)/, (_, t: string) => `"time":${Number(t) + 1}`);
    fs.writeFileSync(sidecar, text);
    const report = await verify(folder, 1);
    expect(report.problems).toEqual([expect.objectContaining({ file: FILE, line: 41, kind: 'signature' })]);
  });

  it('catches an edit whose sidecar was recomputed: it no longer matches the signed chain', async () => {
    const { folder, file, lines } = await dayOne();
    const edited = [...lines];
    edited[5] = edited[5]!.replace('Add', 'Del');
    write(file, edited);
    // Recompute every batch entry from the edited file, as someone who read docs/integrity.md
    // would; the signature entries stay (they cannot be made without the key).
    const sidecar = `${file}.sig`;
    const entries = fs.readFileSync(sidecar, 'utf8').split('\n').slice(0, -1);
    let chain = GENESIS;
    let from = 0;
    const rewritten = entries.map((text) => {
      const entry = JSON.parse(text) as { line?: number; offset?: number; digests?: string };
      if (entry.offset === undefined) return text;
      const batch = edited
        .slice(from, entry.line)
        .map((l) => l + '\n')
        .join('');
      from = entry.line!;
      chain = nextChain(chain, batch);
      return JSON.stringify({ ...entry, chain: chain.toString('hex'), digests: encodeDigests(Buffer.from(batch)) });
    });
    fs.writeFileSync(sidecar, rewritten.map((l) => l + '\n').join(''));
    const report = await verify(folder, 1);
    expect(report.problems).toEqual([expect.objectContaining({ file: FILE, line: 41, kind: 'changed' })]);
    expect(report.verified).toEqual([{ file: FILE, from: 42, to: 61 }]);
  });

  it('names a log file whose sidecar was deleted, and a sidecar whose log file was deleted', async () => {
    const { folder, file } = await dayOne();
    const copy = makeTempDir();
    fs.copyFileSync(`${file}.sig`, path.join(copy, `${FILE}.sig`));
    fs.rmSync(`${file}.sig`);
    expect((await verify(folder, 1)).problems).toEqual([expect.objectContaining({ file: FILE, kind: 'signature' })]);
    expect((await verify(copy, 1)).problems).toEqual([expect.objectContaining({ file: FILE, kind: 'removed' })]);
  });
});
