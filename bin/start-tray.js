#!/usr/bin/env node
// `npm start`: launches the tray app with Electron. Electron's binary is downloaded by its own
// install step; where it is missing (offline installs use ELECTRON_SKIP_BINARY_DOWNLOAD=1),
// say so in one line and point to the headless agent instead of printing a stack trace.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
let electronBinary;
try {
  electronBinary = require('electron'); // the path of the binary, when it was downloaded
} catch {
  electronBinary = null;
}
if (typeof electronBinary !== 'string' || !existsSync(electronBinary)) {
  process.stderr.write(
    'vigil: Electron is not installed on this machine (its binary was not downloaded), so the tray app cannot start; ' +
      'run "npm ci" without ELECTRON_SKIP_BINARY_DOWNLOAD to get it, or run the headless agent with "npm run agent".\n',
  );
  process.exit(1);
}
const appDir = fileURLToPath(new URL('..', import.meta.url));
if (!existsSync(fileURLToPath(new URL('../dist/main/index.js', import.meta.url)))) {
  process.stderr.write('vigil: the tray app is not built yet; run "npm run build" (npm ci does it too)\n');
  process.exit(1);
}
const child = spawn(electronBinary, [appDir], { stdio: 'inherit' });
// Ctrl+C or a kill reaches the app, whose quit handler stops the agent cleanly; this launcher
// waits for it instead of leaving first.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
