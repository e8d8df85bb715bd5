/**
 * `vigil console [--data-dir DIR]`: prints a one-time login link for a browser on this machine
 * (shared/console-api.ts): `{"url","expiresAt"}`, valid 60 s, single use. Needs a running agent.
 */
import { parseArgs } from 'node:util';
import { ConsolePaths, type LoginLinkResponse } from '../../shared/console-api.js';
import { resolveDataDir } from '../config/data-dir.js';
import { AgentUnreachableError, withAdminTarget } from './admin-client.js';
import { UsageError } from './usage-error.js';

export const CONSOLE_USAGE = 'vigil console [--data-dir DIR]';

export async function runConsoleCommand(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { 'data-dir': { type: 'string' } }, strict: true }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${CONSOLE_USAGE}`);
  }
  const dataDir = resolveDataDir({ flag: values['data-dir'] });
  const link = await withAdminTarget<LoginLinkResponse>(dataDir, {
    online: (api) => api.request<LoginLinkResponse>('POST', ConsolePaths.loginLinks),
    offline: () => {
      throw new AgentUnreachableError(`no agent is running on ${dataDir}; start it with: vigil agent`);
    },
  });
  process.stdout.write(JSON.stringify(link) + '\n');
  return 0;
}
