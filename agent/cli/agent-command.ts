/**
 * `vigil agent`: runs the agent headless (README.md). Prints exactly one JSON line on
 * stdout once every listener accepts connections; logs go to stderr; SIGINT/SIGTERM stop
 * it cleanly with exit code 0.
 */
import { parseArgs } from 'node:util';
import { startAgent } from '../agent.js';
import { resolveDataDir } from '../config/data-dir.js';
import { restrictNewFiles } from '../config/data-dir-permissions.js';
import { createLogger, parseLogLevel } from '../log/logger.js';
import { packageVersion } from './package-info.js';
import { parsePort, UsageError } from './usage-error.js';

import { AGENT_USAGE } from './agent-usage.js';

export async function runAgentCommand(argv: string[]): Promise<number> {
  restrictNewFiles(); // before anything is written (docs/security.md, F10)
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string' },
        'api-port': { type: 'string' },
        'audit-port': { type: 'string' },
        'console-port': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${AGENT_USAGE}`);
  }
  const ports = {
    api: parsePort('--api-port', values['api-port']),
    audit: parsePort('--audit-port', values['audit-port']),
    console: parsePort('--console-port', values['console-port']),
  };
  const log = createLogger({ level: parseLogLevel(process.env['VIGIL_LOG_LEVEL']) });
  const dataDir = resolveDataDir({ flag: values['data-dir'] });

  // Signal handlers go in before anything else: a script may send SIGTERM the moment it reads
  // the ready line, and a signal that arrives before a handler exists kills the process
  // without a clean stop.
  let stopRequested: ((signal: string) => void) | null = null;
  const pending: string[] = [];
  const onSignal = (signal: string): void => (stopRequested ? stopRequested(signal) : void pending.push(signal));
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));

  const agent = await startAgent({ dataDir, ports, log, version: packageVersion() });
  const urls = agent.urls();
  process.stdout.write(
    JSON.stringify({
      event: 'ready',
      apiUrl: urls.apiUrl,
      auditUrl: urls.auditUrl,
      consoleUrl: urls.consoleUrl,
      certificateSha256: agent.identity.fingerprint256,
    }) + '\n',
  );

  return new Promise<number>((resolve) => {
    stopRequested = (signal: string): void => {
      stopRequested = () => undefined;
      log.info('stopping', { signal });
      agent.stop().then(
        () => resolve(0),
        (error: Error) => {
          log.error('clean stop failed', { error: error.message });
          resolve(1);
        },
      );
    };
    const early = pending.shift();
    if (early) stopRequested(early);
  });
}
