/** What the CLI's commands read from stdin and write to stdout, done one way. */

/** A password given with `--password-stdin`: all of stdin, less one trailing line break. */
export async function readPasswordStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  // One trailing line break is what `echo` and here-strings add; it is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** A command's result: indented JSON, one value, for people and `jq` alike. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
