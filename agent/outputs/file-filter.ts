/**
 * An output's file filter (docs/agent-api.md `fileFilter`): which records the output receives.
 * Only file activity reaches host outputs, only directory records reach domain outputs;
 * self-audit and API records are in the store and the live feed only.
 */
import path from 'node:path';
import type { FileFilter } from '../config/monitoring-schema.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import { isUnder } from '../util/path-under.js';

export type ItemFilter = (item: StoredItem) => boolean;

export function compileFileFilter(filter: FileFilter): ItemFilter {
  const operations = new Set<string>(filter.operations);
  const include = filter.includePaths.map((p) => path.resolve(p));
  const exclude = filter.excludePaths.map((p) => path.resolve(p));
  const extensions = new Set(filter.excludeExtensions.map((e) => (e.startsWith('.') ? e : `.${e}`).toLowerCase()));
  const accounts = new Set(filter.excludeAccounts.map((a) => a.toLowerCase()));
  const pathPasses = (p: string): boolean =>
    (include.length === 0 || include.some((dir) => isUnder(p, dir))) && !exclude.some((dir) => isUnder(p, dir));

  return (item) => {
    const file = item.file;
    if (!file || !operations.has(file.operation)) return false;
    if (accounts.size > 0 && accounts.has(item.stored.Who.toLowerCase())) return false;
    const target = file.newPath ?? file.path;
    if (extensions.size > 0 && file.objectType === 'File' && extensions.has(path.extname(target).toLowerCase())) {
      return false;
    }
    return pathPasses(file.path) || (file.newPath !== undefined && pathPasses(file.newPath));
  };
}

/**
 * A domain output's filter (docs/directory.md): `operations` and `excludeAccounts` (the actor's DN,
 * case-insensitive) apply to directory records; the path and extension members describe files
 * and are not used.
 */
export function compileDomainFilter(filter: FileFilter): ItemFilter {
  const operations = new Set<string>(filter.operations);
  const accounts = new Set(filter.excludeAccounts.map((a) => a.toLowerCase()));
  return (item) =>
    item.domainId !== undefined &&
    operations.has(item.stored.Action) &&
    !(accounts.size > 0 && accounts.has(item.stored.Who.toLowerCase()));
}
