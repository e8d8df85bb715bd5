/**
 * fanotify event mask bits (linux/fanotify.h) and the activity kinds they stand for. The
 * kernel merges consecutive events of one process on one object into one mask, so one
 * native event can stand for several kinds, listed in the order they happened.
 */
export const FAN = {
  ACCESS: 0x1,
  MODIFY: 0x2,
  CLOSE_WRITE: 0x8,
  MOVED_FROM: 0x40,
  MOVED_TO: 0x80,
  CREATE: 0x100,
  DELETE: 0x200,
  Q_OVERFLOW: 0x4000,
  RENAME: 0x10000000,
  ONDIR: 0x40000000,
} as const;

export type ActivityKind =
  'create' | 'delete' | 'moveFrom' | 'moveTo' | 'rename' | 'closeWrite' | 'modify' | 'read' | 'overflow';

const ORDER: Array<[number, ActivityKind]> = [
  [FAN.CREATE, 'create'],
  [FAN.MOVED_TO, 'moveTo'],
  [FAN.RENAME, 'rename'],
  [FAN.MODIFY, 'modify'],
  [FAN.ACCESS, 'read'],
  [FAN.CLOSE_WRITE, 'closeWrite'],
  [FAN.MOVED_FROM, 'moveFrom'],
  [FAN.DELETE, 'delete'],
];

export function kindsOf(mask: number): ActivityKind[] {
  if (mask & FAN.Q_OVERFLOW) return ['overflow'];
  const out: ActivityKind[] = [];
  // `mask` can exceed 2^31 (FAN_ONDIR is bit 30, FAN_RENAME bit 28): test bits arithmetically.
  for (const [bit, kind] of ORDER) if (Math.floor(mask / bit) % 2 === 1) out.push(kind);
  return out;
}
