// `npm ci` / `npm install` step: builds the fanotify addon from source (docs/attribution.md).
// It never fails the install: on another OS, without a compiler, or when the build fails,
// the addon is simply absent and the agent runs its folder watcher without attribution.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function skip(reason) {
  console.warn(`vigil: fanotify addon not built (${reason}); file activity will not name its actor`);
  process.exit(0);
}

if (process.platform !== 'linux') skip(`not Linux: ${process.platform}`);
if (process.env.VIGIL_SKIP_NATIVE === '1') skip('VIGIL_SKIP_NATIVE=1');
const has = (cmd, args = ['--version']) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const compiler = process.env.CXX ?? 'c++';
if (!has(compiler)) skip(`no C++ compiler (${compiler})`);
if (!has('make')) skip('no make');

// npm hands install scripts the path of its own node-gyp; outside npm, the one on PATH.
const gyp = process.env.npm_config_node_gyp;
const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
const result = spawnSync(command, [...args, 'rebuild', `--directory=${here}`], { stdio: 'inherit' });
if (result.status !== 0) skip(`node-gyp rebuild failed (${result.error?.message ?? `exit ${result.status}`})`);
