/**
 * How far each log file output has written: the file and the byte offset after the last line
 * of the last committed batch. The position is written in the same transaction as the records,
 * so on start-up anything past it in that file belongs to records that were never committed
 * and is cut off (docs/activity-pipeline.md, "Nothing lost").
 */
import type Database from 'better-sqlite3';

export interface OutputPosition {
  file: string;
  offset: number;
}

export class OutputPositions {
  private readonly select: Database.Statement;
  private readonly upsert: Database.Statement;
  private readonly remove: Database.Statement;

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT file, offset FROM output_positions WHERE output_id = ?');
    this.upsert = db.prepare(
      `INSERT INTO output_positions (output_id, file, offset) VALUES (?, ?, ?)
       ON CONFLICT (output_id) DO UPDATE SET file = excluded.file, offset = excluded.offset`,
    );
    this.remove = db.prepare('DELETE FROM output_positions WHERE output_id = ?');
  }

  get(outputId: string): OutputPosition | null {
    return (this.select.get(outputId) as OutputPosition | undefined) ?? null;
  }

  /** Call inside the batch transaction. */
  set(outputId: string, position: OutputPosition): void {
    this.upsert.run(outputId, position.file, position.offset);
  }

  delete(outputId: string): void {
    this.remove.run(outputId);
  }
}
