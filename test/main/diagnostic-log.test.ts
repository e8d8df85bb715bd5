/** The tray app's log file: appended line by line, bounded in size, never fatal. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diagnosticLogWriter } from '../../main/diagnostic-log.js';
import { makeTempDir } from '../helpers/temp-dir.js';

describe('diagnostic log', () => {
  it('creates its folder and appends one line per entry, owner-only', () => {
    const file = path.join(makeTempDir(), 'diagnostics', 'vigil.log');
    const write = diagnosticLogWriter(file);
    write('first');
    write('second');
    expect(fs.readFileSync(file, 'utf8')).toBe('first\nsecond\n');
    if (process.platform !== 'win32') expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // A new writer (next app start) appends to what is there.
    diagnosticLogWriter(file)('third');
    expect(fs.readFileSync(file, 'utf8')).toBe('first\nsecond\nthird\n');
  });

  it('moves a full file aside to .1, keeping at most two files', () => {
    const file = path.join(makeTempDir(), 'vigil.log');
    const write = diagnosticLogWriter(file, { maxBytes: 100 });
    const line = 'x'.repeat(39); // 40 bytes with the newline
    for (let i = 0; i < 7; i++) write(line);
    const current = fs.readFileSync(file, 'utf8');
    const previous = fs.readFileSync(`${file}.1`, 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(100);
    expect(Buffer.byteLength(previous)).toBeLessThanOrEqual(100);
    expect((current + previous).split('\n').filter(Boolean)).toHaveLength(3); // 7 written, 4 dropped with the oldest .1
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['vigil.log', 'vigil.log.1']);
  });

  it('echoes lines, and keeps running when the file cannot be written', () => {
    const dir = makeTempDir();
    const file = path.join(dir, 'vigil.log');
    const echoed: string[] = [];
    const write = diagnosticLogWriter(file, { echo: (l) => echoed.push(l) });
    fs.mkdirSync(file); // a folder where the file should be: every append fails
    const stderr = process.stderr.write.bind(process.stderr);
    const complaints: string[] = [];
    process.stderr.write = ((chunk: string) => (complaints.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(() => write('a')).not.toThrow();
      expect(() => write('b')).not.toThrow();
    } finally {
      process.stderr.write = stderr;
    }
    expect(echoed).toEqual(['a', 'b']);
    expect(complaints).toHaveLength(1); // said once, not per line
    expect(complaints[0]).toContain(file);
  });
});
