#!/usr/bin/env node
// Launcher of the `vigil` command: runs the compiled CLI from dist/ (built by `npm run build`,
// which `npm ci` runs through the prepare script).
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

const entry = new URL('../dist/agent/cli/vigil.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('vigil: the agent is not built yet; run "npm run build" (npm ci does it too)\n');
  process.exit(1);
}
await import(entry.href);
