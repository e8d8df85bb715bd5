/** A mistake in the command line: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** Parses a `--…-port` value: an integer 0–65535. */
export function parsePort(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`${flag} must be a port number from 0 to 65535 (0 picks a free port), not "${value}"`);
  }
  return Number(value);
}
