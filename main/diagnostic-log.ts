/**
 * Where the tray app's log lines go. A packaged tray app has no terminal, so the agent's
 * stderr lines (agent/log/logger.ts) are appended to `<data dir>/diagnostics/vigil.log` as
 * well; the file is kept under a size bound by moving it to `vigil.log.1` when it grows past
 * it. Lines are appended synchronously: the last line before a crash is the one that matters.
 */
import fs from 'node:fs';
import path from 'node:path';

export const DIAGNOSTIC_LOG = path.join('diagnostics', 'vigil.log');

export interface DiagnosticLogOptions {
  maxBytes?: number;
  /** Also write to stderr (useful under `npm start`). */
  echo?: (line: string) => void;
}

export function diagnosticLogWriter(file: string, options: DiagnosticLogOptions = {}): (line: string) => void {
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let size = fs.existsSync(file) ? fs.statSync(file).size : 0;
  let broken = false;
  return (line) => {
    options.echo?.(line);
    if (broken) return;
    const text = line + '\n';
    try {
      if (size > 0 && size + Buffer.byteLength(text) > maxBytes) {
        fs.renameSync(file, `${file}.1`);
        size = 0;
      }
      fs.appendFileSync(file, text, { mode: 0o600 });
      size += Buffer.byteLength(text);
    } catch (error) {
      // A full or read-only disk must not take the app down; say so once on stderr.
      broken = true;
      process.stderr.write(`vigil: cannot write ${file}: ${(error as Error).message}\n`);
    }
  };
}
