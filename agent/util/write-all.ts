/** Writes all of `buffer` at the descriptor's position: `fs.writeSync` may write less than asked. */
import fs from 'node:fs';

export function writeAll(fd: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
}
