/**
 * Whether a throwaway account (useradd) can run this checkout's code: every folder above the
 * repository must let others through (o+x). A clone under an owner-only folder (`mktemp -d`
 * makes one) hides it, and the tests that run code as another account skip with that reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './cli.js';

/** Null when other accounts can reach the checkout; else the folder that hides it. */
export function checkoutHiddenFromOthers(): string | null {
  for (let dir = REPO_ROOT; ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}
