/**
 * The default destination of log lines: stderr, written so that a destination that fails (a
 * full disk behind a redirection, `/dev/full`, a closed pipe) never stops the agent
 * (docs/security.md, F05). Node reports such a failure as an 'error' event on process.stderr,
 * and with no listener that event kills the process at its first log line. Here the failure is
 * caught, the stream is given up, later lines are written with plain `fs.writeSync` (so logging
 * resumes once the disk has room again), and every line that could not be written is counted.
 */
import fs from 'node:fs';

let listening = false;
let broken = false;
let dropped = 0;
let reportedDropped = 0;

function onStreamError(): void {
  broken = true;
  dropped += 1;
}

function writeDirect(line: string): boolean {
  try {
    fs.writeSync(2, line);
    return true;
  } catch {
    dropped += 1;
    return false;
  }
}

/** Writes one line (with its newline) to stderr; never throws, never emits. */
export function writeStderrLine(line: string): void {
  if (!listening) {
    listening = true;
    process.stderr.on('error', onStreamError);
  }
  if (!broken) {
    process.stderr.write(line);
    return;
  }
  if (dropped > reportedDropped) {
    const lost = dropped - reportedDropped;
    if (!writeDirect(`${new Date().toISOString()} WARN log lines lost: stderr could not be written lost=${lost}\n`)) {
      return;
    }
    reportedDropped += lost;
  }
  writeDirect(line);
}

/** Log lines lost since start because stderr could not be written. */
export function droppedLogLines(): number {
  return dropped;
}
