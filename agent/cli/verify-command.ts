/**
 * `vigil verify [--data-dir DIR] [--logs FOLDER] [--public-key FILE.pem]` (docs/integrity.md):
 * checks the audit database's hash chain and signed checkpoints, and with `--logs` the log files
 * of a folder against their sidecars (zips included; only the log files when `--logs` is given
 * without `--data-dir`). Read-only: runs while the agent writes, and offline on copies taken
 * elsewhere. Prints a JSON report; exit 0 only when everything checked is intact.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dataPaths, resolveDataDir } from '../config/data-dir.js';
import { SIGNING_KEY_FILE } from '../integrity/signing-key.js';
import { runVerification } from '../integrity/log-verification.js';
import type { VerifyReport } from '../integrity/verify-report.js';
import { EXIT_FAILURE, EXIT_OK, UsageError } from './usage-error.js';
import { printJson } from './cli-io.js';

export const VERIFY_USAGE =
  'vigil verify [--data-dir DIR] [--logs FOLDER] [--public-key FILE.pem] | --fleet [--data-dir DIR]';

function loadPublicKey(file: string | undefined, secretsDir: string | null): crypto.KeyObject | null {
  if (file !== undefined) return crypto.createPublicKey(fs.readFileSync(file));
  if (secretsDir === null) return null;
  try {
    return crypto.createPublicKey(crypto.createPrivateKey(fs.readFileSync(path.join(secretsDir, SIGNING_KEY_FILE))));
  } catch {
    return null;
  }
}

export async function runVerifyCommand(argv: string[]): Promise<number> {
  let values: { 'data-dir'?: string; logs?: string; 'public-key'?: string; fleet?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        logs: { type: 'string' },
        'public-key': { type: 'string' },
        fleet: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${VERIFY_USAGE}`);
  }
  if (values.logs !== undefined && !fs.statSync(values.logs, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`--logs: ${values.logs} is not a folder`);
  }
  const paths = dataPaths(resolveDataDir({ flag: values['data-dir'] }));
  if (values.fleet) {
    // The chains as forwarded to the fleet database (docs/fleet.md).
    const fleet = await (await import('./fleet-verify.js')).verifyFleetOf(paths);
    printJson(fleet);
    return fleet.ok ? EXIT_OK : EXIT_FAILURE;
  }
  let publicKey: crypto.KeyObject | null;
  try {
    publicKey = loadPublicKey(values['public-key'], paths.secrets);
  } catch (error) {
    throw new UsageError(`--public-key: not a public key (${(error as Error).message})`);
  }
  const checkDatabase = values['data-dir'] !== undefined || values.logs === undefined;
  if (checkDatabase && !fs.existsSync(paths.auditDb)) {
    process.stderr.write(`vigil: no audit database at ${paths.auditDb}\n`);
    return EXIT_FAILURE;
  }
  const { ok, verified, problems } = await runVerification({
    auditDb: checkDatabase ? paths.auditDb : null,
    logs: values.logs ?? null,
    publicKeyPem: publicKey === null ? null : publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  });
  const report: VerifyReport = { ok, verified, problems };
  printJson(report);
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}
