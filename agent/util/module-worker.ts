/**
 * Starts a worker thread from a sibling module of the caller. From the compiled `dist/` it is
 * a plain `.js` worker. When the agent runs from its TypeScript sources (the test suite and
 * `tsx`), the worker is a `.ts` file that Node 20 cannot load by itself: a two-line bootstrap
 * registers tsx's loader inside the worker first (tsx is a development dependency, present
 * wherever the sources run).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * @param callerUrl `import.meta.url` of the module next to the worker file
 * @param baseName  the worker's file name without extension, e.g. `search-index-worker`
 */
export function startModuleWorker(callerUrl: string, baseName: string, options: WorkerOptions = {}): Worker {
  const fromSources = callerUrl.endsWith('.ts');
  const target = new URL(`./${baseName}.${fromSources ? 'ts' : 'js'}`, callerUrl);
  if (!fromSources) return new Worker(target, options);
  const bootstrap =
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(target.href)}); })` +
    `.catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
