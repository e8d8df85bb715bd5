/**
 * Who and where, for records of this workstation (docs/activity-pipeline.md). A file watcher sees that a
 * file changed, not who changed it: inotify, FSEvents and ReadDirectoryChangesW carry no user.
 * So `Who` is the account that runs the agent, written `HOST\user`, and the operator guide says
 * so (docs/activity-pipeline.md, "What the watcher can and cannot see").
 */
import os from 'node:os';

export interface LocalAccount {
  /** The machine's host name: `Where` and `Workstation` of every record. */
  hostname: string;
  /** `HOST\user` of the account running the agent. */
  who: string;
  /** The numeric user id (POSIX) or null (Windows), for the log files' user column. */
  uid: number | null;
}

export function localAccount(): LocalAccount {
  const hostname = os.hostname();
  const info = os.userInfo();
  return { hostname, who: `${hostname}\\${info.username}`, uid: info.uid >= 0 ? info.uid : null };
}
