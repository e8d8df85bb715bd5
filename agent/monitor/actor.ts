/**
 * Who acted on a file, as the fanotify watch resolved it (docs/attribution.md). `who` is null
 * when the kernel named a process the agent could not resolve: the record then says `unknown`
 * with the process id, never a guess.
 */
export interface Actor {
  /** `HOST\name` of the effective uid (`HOST\#uid` without a name); null when unresolved. */
  who: string | null;
  uid: number | null;
  pid: number;
  /** The executable's path; null when unknown. */
  exe: string | null;
  /** `HOST\name` of the login uid, when set. */
  loginWho: string | null;
}

/** `Who` of a record whose actor is not known: found by a scan, or unresolved. */
export const UNKNOWN_ACTOR = 'unknown';
