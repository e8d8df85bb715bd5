/**
 * What a fresh install monitors: the local machine as one host, watching the user's document
 * folders (Desktop, Documents, Downloads, Pictures, Music, Videos — those that exist), with a
 * TSV LogFile output. Not the whole home folder: it holds caches, browser profiles and
 * toolchains that change constantly and can hold more folders than the inotify watch limit
 * allows (docs/activity-pipeline.md, "Default folders").
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { localHostType, type HostSettings, type OutputSettings } from '../config/monitoring-schema.js';

const STANDARD = ['Desktop', 'Documents', 'Downloads', 'Pictures', 'Music', 'Videos'] as const;
/** XDG user-dirs keys for the same folders (their names may be translated on Linux). */
const XDG_KEYS = new Set([
  'XDG_DESKTOP_DIR',
  'XDG_DOCUMENTS_DIR',
  'XDG_DOWNLOAD_DIR',
  'XDG_PICTURES_DIR',
  'XDG_MUSIC_DIR',
  'XDG_VIDEOS_DIR',
]);

/** The user's standard folders under `home` that exist, in a stable order. */
export function defaultMonitoredFolders(home: string, platform: NodeJS.Platform = process.platform): string[] {
  const candidates = new Set<string>(STANDARD.map((name) => path.join(home, name)));
  if (platform === 'linux') {
    // ~/.config/user-dirs.dirs: XDG_DOCUMENTS_DIR="$HOME/Dokumente"
    try {
      const text = fs.readFileSync(path.join(home, '.config', 'user-dirs.dirs'), 'utf8');
      for (const line of text.split('\n')) {
        const match = /^(XDG_\w+_DIR)="([^"]*)"/.exec(line.trim());
        if (!match || !XDG_KEYS.has(match[1]!)) continue;
        const value = match[2]!.replace(/^\$HOME/, home);
        if (path.isAbsolute(value) && path.resolve(value) !== path.resolve(home)) candidates.add(path.resolve(value));
      }
    } catch {
      // No user-dirs file: the English names above.
    }
  }
  return [...candidates].filter((p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false).sort();
}

/**
 * How to add a folder, for the log line and the host status when a host watches none (a first
 * run on a machine without user folders, or every folder removed): nothing is recorded then.
 */
export const ADD_FOLDER_HINT =
  'Add a folder to watch: in the console, "Add folder" under the host on the overview; or ' +
  'PATCH /api/v1/hosts/{id} with {"includePaths": ["/path/to/folder"]}.';

export interface FirstRunMonitoring {
  host: HostSettings;
  output: OutputSettings;
}

export function firstRunMonitoring(home: string, hostname: string): FirstRunMonitoring {
  const host: HostSettings = {
    id: crypto.randomUUID(),
    host: hostname,
    type: localHostType(),
    isEnabled: true,
    includePaths: defaultMonitoredFolders(home),
    excludePaths: [],
    rescanIntervalMinutes: 60,
    monitorReads: false,
    comment: 'Created on first run: the user folders of the account running the agent.',
  };
  const output: OutputSettings = {
    id: crypto.randomUUID(),
    hostId: host.id,
    type: 'LogFile',
    isEnabled: true,
    comment: '',
    logFile: { format: 'Tsv', daysToRetain: 10, headerRow: false, zipClosedFiles: true },
    fileFilter: {
      operations: ['Added', 'Modified', 'Removed', 'Renamed', 'Moved'],
      includePaths: [],
      excludePaths: [],
      excludeExtensions: [],
      excludeAccounts: [],
    },
  };
  return { host, output };
}
