/**
 * Before a `vigil` command sends the console token, a password or anything else to the console
 * URL that agent.lock names, the program listening there must prove it holds this data dir's
 * console token (agent/console/console-token.ts, consoleIdentityProof). A dead agent's port may
 * have been taken by someone else's program (docs/security.md, F8): that program gets a random
 * challenge and nothing more.
 */
import crypto from 'node:crypto';
import { ConsolePaths } from '../../shared/console-api.js';
import { consoleIdentityProof } from '../console/console-token.js';

/** The program at the console URL is not this data dir's agent, or did not answer as one. */
export class ConsoleIdentityError extends Error {
  override name = 'ConsoleIdentityError';
}

export async function verifyConsoleIdentity(consoleUrl: string, token: string, lockFile: string): Promise<void> {
  const challenge = crypto.randomBytes(32).toString('base64url');
  const url = new URL(ConsolePaths.identityProof, consoleUrl);
  url.searchParams.set('challenge', challenge);
  const refuse = (why: string): ConsoleIdentityError =>
    new ConsoleIdentityError(
      `the program at ${consoleUrl} could not prove it is the agent of this data directory (${why}); ` +
        `nothing was sent to it. If no agent runs on this data directory, ${lockFile} is left over ` +
        `from one that died: stop the program on that port, or delete the file, and try again.`,
    );
  let answer: unknown;
  try {
    const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw refuse(`it answered ${response.status}`);
    answer = await response.json();
  } catch (error) {
    if (error instanceof ConsoleIdentityError) throw error;
    throw refuse((error as Error).message);
  }
  const proof = (answer as { proof?: unknown } | null)?.proof;
  const expected = Buffer.from(consoleIdentityProof(token, challenge, Number(new URL(consoleUrl).port)));
  const given = Buffer.from(typeof proof === 'string' ? proof : '');
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) throw refuse('wrong proof');
}
