/**
 * The settings store: one lowdb document in `settings.json`, validated against the settings
 * schema when read and before every write. lowdb keeps one writer per file (docs/architecture.md), so
 * the agent owns the only instance; admin commands reach it through the console API.
 *
 * A file that does not parse or does not validate stops the agent with a message naming the
 * file and the field, and the file is left exactly as it was: a silent reset to defaults
 * would throw away the operator's clients, users and allow-list.
 */
import fs from 'node:fs/promises';
import { EventEmitter } from 'node:events';
import { Low, type Adapter } from 'lowdb';
import { defaultSettings, settingsSchema, type Settings } from './settings-schema.js';
import { describeProblem, fieldProblems, type FieldProblem } from '../util/validation-errors.js';
import { writeFileDurably } from './durable-file.js';
import { migrateSettingsFile, type SettingsMigration } from './settings-migration.js';

/** The settings file exists but cannot be used; the agent must not start. */
export class SettingsFileError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`settings file ${file} cannot be used: ${problem}. Fix or move the file, then start again.`);
    this.name = 'SettingsFileError';
  }
}

/** A requested change would make the settings invalid; nothing was changed. */
export class SettingsValidationError extends Error {
  constructor(readonly problems: FieldProblem[]) {
    super(problems.map(describeProblem).join('; '));
    this.name = 'SettingsValidationError';
  }
  get field(): string {
    return this.problems[0]?.field ?? '';
  }
}

class ValidatedJsonFile implements Adapter<Settings> {
  constructor(private readonly file: string) {}

  async read(): Promise<Settings | null> {
    let text: string;
    try {
      text = await fs.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new SettingsFileError(this.file, (error as Error).message);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new SettingsFileError(this.file, `not valid JSON (${(error as Error).message})`);
    }
    const result = settingsSchema.safeParse(json);
    if (!result.success) {
      const problems = fieldProblems(result.error).map(describeProblem).join('; ');
      throw new SettingsFileError(this.file, problems);
    }
    return result.data;
  }

  async write(data: Settings): Promise<void> {
    await writeFileDurably(this.file, JSON.stringify(data, null, 2) + '\n');
  }
}

export type SettingsListener = (next: Settings, previous: Settings) => void;

export class SettingsStore {
  private readonly events = new EventEmitter();
  /** Writes run one after another so the file always ends with the latest document. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly file: string,
    private readonly db: Low<Settings>,
    /** What opening did to a file of an older version (settings-migration.ts); null when nothing. */
    readonly migration: SettingsMigration | null,
  ) {}

  /**
   * Reads the file (migrated first when an older version wrote it), or creates it with defaults
   * on first run. Throws SettingsFileError.
   */
  static async open(file: string): Promise<SettingsStore> {
    const migration = await migrateSettingsFile(file);
    const db = new Low<Settings>(new ValidatedJsonFile(file), defaultSettings());
    const existing = await db.adapter.read();
    if (existing === null) await db.write();
    else db.data = existing;
    return new SettingsStore(file, db, migration);
  }

  /** The current settings; treat as read-only, change them with `update`. */
  get current(): Readonly<Settings> {
    return this.db.data;
  }

  /**
   * Applies `change` to a copy, validates the result, persists it durably, then publishes it.
   * Throws SettingsValidationError (and changes nothing) when the result is invalid.
   */
  update(change: (draft: Settings) => void): Promise<Settings> {
    const run = async (): Promise<Settings> => {
      const previous = this.db.data;
      const draft = structuredClone(previous);
      change(draft);
      const result = settingsSchema.safeParse(draft);
      if (!result.success) throw new SettingsValidationError(fieldProblems(result.error));
      await this.db.adapter.write(result.data);
      this.db.data = result.data;
      this.events.emit('change', result.data, previous);
      return result.data;
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Called after each successful update; returns a function that unsubscribes. */
  onChange(listener: SettingsListener): () => void {
    this.events.on('change', listener);
    return () => this.events.off('change', listener);
  }

  /** Waits for pending writes. */
  async close(): Promise<void> {
    await this.queue;
    this.events.removeAllListeners();
  }
}
