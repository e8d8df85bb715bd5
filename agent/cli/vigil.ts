/** Process entry of the `vigil` command (bin/vigil.js loads the compiled form of this file). */
import { main } from './main.js';
import { EXIT_FAILURE } from './usage-error.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Let stdout drain; if a stray handle keeps the loop alive, still leave in time.
    setTimeout(() => process.exit(code), 3000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`vigil: ${String(error)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
