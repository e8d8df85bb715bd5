/**
 * The host status the file activity source reports (the console's host view, the agent API's
 * host resource): what is monitored, or which folders are not fully monitored and why.
 */
import type { StatusType } from '../status/status-registry.js';
import { ADD_FOLDER_HINT } from './default-host.js';

export interface FolderProblems {
  include: readonly string[];
  /** Include folders that do not exist. */
  missingRoots: Iterable<string>;
  /** Folders that could not be watched, with the error code (ENOSPC: the inotify limit). */
  unwatched: ReadonlyMap<string, string>;
  /** Folders that could not be read, with the error code. */
  unreadable: ReadonlyMap<string, string>;
  /** How often the unwatched and missing folders are checked again. */
  retryMs: number;
}

export interface HostStatusText {
  type: StatusType;
  summary: string;
  details: string;
}

const plural = (n: number, word: string): string => `${n} ${n === 1 ? word : `${word}s`}`;

export function hostStatusText(state: FolderProblems): HostStatusText {
  const { include } = state;
  if (include.length === 0) {
    return { type: 'Warning', summary: 'No folder is watched: nothing is recorded', details: ADD_FOLDER_HINT };
  }
  const every = `every ${state.retryMs / 1000} s`;
  const problems: string[] = [];
  for (const root of state.missingRoots) problems.push(`folder ${root} does not exist (checked again ${every})`);
  const limit = [...state.unwatched.values()].filter((code) => code === 'ENOSPC').length;
  if (limit > 0) {
    problems.push(
      `the inotify watch limit (fs.inotify.max_user_watches) is reached: ${limit} folders are not watched live and are checked ${every}`,
    );
  }
  const other = [...state.unwatched].filter(([, code]) => code !== 'ENOSPC');
  if (other.length > 0) problems.push(`${other.length} folders cannot be watched (${other[0]![0]}: ${other[0]![1]})`);
  if (state.unreadable.size > 0) {
    const [first, code] = [...state.unreadable][0]!;
    problems.push(`${plural(state.unreadable.size, 'folder')} cannot be read (${first}: ${code})`);
  }
  if (problems.length > 0) {
    return { type: 'Warning', summary: 'Some folders are not fully monitored', details: problems.join('; ') };
  }
  return { type: 'OK', summary: `Monitoring ${plural(include.length, 'folder')}`, details: include.join('; ') };
}
