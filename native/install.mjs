// `npm ci` / `npm install` step: builds the native addons from source (native/binding.gyp):
// - vigil_fanotify, Linux only (docs/attribution.md): without it the agent runs its folder
//   watcher without attribution;
// - vigil_chain, every platform (docs/integrity.md): without it the record chain is hashed by
//   node:crypto record by record, with the same values, at a higher cost per record.
// It never fails the install: without a compiler, or when the build fails, the addons are
// simply absent and the agent runs without them.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

function skip(reason) {
  console.warn(
    `vigil: native addons not built (${reason}); file activity will not name its actor` +
      ' and the record chain is hashed without the batch addon',
  );
  process.exit(0);
}

if (process.platform !== 'linux') {
  console.warn(`vigil: fanotify addon not built (not Linux: ${process.platform}); building the chain addon only`);
}
if (process.env.VIGIL_SKIP_NATIVE === '1') skip('VIGIL_SKIP_NATIVE=1');
const has = (cmd, args = ['--version']) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
// On Windows node-gyp finds Visual Studio by itself; elsewhere it needs a C++ compiler and make.
if (process.platform !== 'win32') {
  const compiler = process.env.CXX ?? 'c++';
  if (!has(compiler)) skip(`no C++ compiler (${compiler})`);
  if (!has('make')) skip('no make');
}

// npm hands install scripts the path of its own node-gyp; outside npm, the one on PATH.
const gyp = process.env.npm_config_node_gyp;
const [command, args] = gyp ? [process.execPath, [gyp]] : ['node-gyp', []];
const result = spawnSync(command, [...args, 'rebuild', `--directory=${here}`], { stdio: 'inherit' });
if (result.status !== 0) skip(`node-gyp rebuild failed (${result.error?.message ?? `exit ${result.status}`})`);
