/**
 * Brings a settings.json written by an older version to the current shape before the store
 * reads it (README.md, "Upgrading"). The original is kept beside it as
 * `settings.json.bak-<version>` (the version that wrote it) and the new document is written
 * durably; nothing is reset. A file that does not parse is left alone: the store reports it.
 *
 * Schema 1 (written by 0.1.0) named a few resource fields differently from the agent API;
 * schema 2 uses the API's names everywhere, so a field means the same in both places.
 */
import fs from 'node:fs/promises';
import { writeFileDurably } from './durable-file.js';

/** The settings schema version each migration produces; the current one is the last. */
export const CURRENT_SETTINGS_SCHEMA = 2;

/** The version of Vigil that wrote each older schema (settings files do not record it). */
const WRITTEN_BY: Readonly<Record<number, string>> = { 1: '0.1.0' };

type JsonObject = Record<string, unknown>;

/** Schema 1 → 2: old name → API name, for the items of each list (`logFile` is nested in outputs). */
const RENAMED_IN_SCHEMA_2: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  hosts: { name: 'host', enabled: 'isEnabled' },
  outputs: { enabled: 'isEnabled' },
  domainOutputs: { enabled: 'isEnabled' },
  domains: { enabled: 'isEnabled' },
  policies: { enabled: 'isEnabled' },
  agents: { apiPort: 'apiServerPort' },
};
const LOG_FILE_RENAMED_IN_SCHEMA_2: Readonly<Record<string, string>> = { retentionDays: 'daysToRetain' };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object with keys renamed in place (order kept); a key whose new name is already present stays, so the schema names it. */
function renameKeys(item: JsonObject, renames: Readonly<Record<string, string>>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(item)) {
    const renamed = renames[key];
    out[renamed !== undefined && !Object.hasOwn(item, renamed) ? renamed : key] = value;
  }
  return out;
}

function toSchema2(settings: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(settings)) {
    const renames = RENAMED_IN_SCHEMA_2[key];
    if (renames === undefined || !Array.isArray(value)) {
      out[key] = value;
      continue;
    }
    out[key] = value.map((item: unknown) => {
      if (!isObject(item)) return item;
      const renamed = renameKeys(item, renames);
      if ((key === 'outputs' || key === 'domainOutputs') && isObject(renamed['logFile'])) {
        renamed['logFile'] = renameKeys(renamed['logFile'], LOG_FILE_RENAMED_IN_SCHEMA_2);
      }
      return renamed;
    });
  }
  out['schemaVersion'] = CURRENT_SETTINGS_SCHEMA;
  return out;
}

/**
 * The schema a settings document was written for: its `schemaVersion`, or, when absent (a
 * hand-written file), 1 if it uses a name schema 1 had, else the current one.
 */
function schemaOf(settings: JsonObject): number {
  const declared = settings['schemaVersion'];
  if (typeof declared === 'number') return declared;
  const migrated = JSON.stringify({ ...toSchema2(settings), schemaVersion: undefined });
  return migrated === JSON.stringify(settings) ? CURRENT_SETTINGS_SCHEMA : 1;
}

export interface SettingsMigration {
  /** The schema the file had, and the version that wrote it. */
  from: number;
  writtenBy: string;
  /** Where the original was kept. */
  backup: string;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/** `settings.json.bak-0.1.0`, or with `.2`, `.3`… when an earlier migration's backup holds other content. */
async function backupPath(file: string, writtenBy: string, original: string): Promise<string> {
  const base = `${file}.bak-${writtenBy}`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}.${n}`;
    if (!(await exists(candidate))) return candidate;
    if ((await fs.readFile(candidate, 'utf8')) === original) return candidate;
  }
}

/**
 * Migrates `file` in place when it was written for an older schema; returns what was done, or
 * null when there was nothing to do (no file, current schema, or not JSON: the store decides).
 */
export async function migrateSettingsFile(file: string): Promise<SettingsMigration | null> {
  let original: string;
  try {
    original = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let settings: unknown;
  try {
    settings = JSON.parse(original);
  } catch {
    return null;
  }
  if (!isObject(settings)) return null;
  const from = schemaOf(settings);
  const writtenBy = WRITTEN_BY[from];
  if (writtenBy === undefined) return null;
  const backup = await backupPath(file, writtenBy, original);
  await writeFileDurably(backup, original);
  await writeFileDurably(file, JSON.stringify(toSchema2(settings), null, 2) + '\n');
  return { from, writtenBy, backup };
}
