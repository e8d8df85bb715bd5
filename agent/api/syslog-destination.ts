/**
 * Who may choose where a Syslog output sends records (docs/permissions.md "Syslog destinations").
 * A Syslog output receives every activity record of its host, so creating one, or changing
 * where one sends (server with its port, protocol), hands activity data to that destination:
 * besides Modify host it needs Access activity data, the permission that reaches activity data.
 * Other changes of a Syslog output (template, filter, comment, enabling) need Modify host only.
 */
import type Koa from 'koa';
import { apiAuth, bearerChallenge } from './bearer-auth.js';

interface OutputLike {
  type: string;
  syslog?: { server: string; protocol?: string | undefined } | undefined;
}

/** Where an output sends records, or null when it is not a Syslog output. */
function destinationOf(output: OutputLike | null): string | null {
  if (output?.type !== 'Syslog' || !output.syslog) return null;
  return `${output.syslog.protocol ?? 'UDP'} ${output.syslog.server.trim().toLowerCase()}`;
}

/** 401 `insufficient_permission` when `after` sends to a new Syslog destination and the client may not read activity data. */
export function checkSyslogDestination(ctx: Koa.Context, before: OutputLike | null, after: OutputLike): void {
  const destination = destinationOf(after);
  if (destination === null || destination === destinationOf(before)) return;
  if (apiAuth(ctx).permissions.includes('accessActivityData')) return;
  throw bearerChallenge(
    'insufficient_permission',
    "a Syslog output receives this agent's activity records, so setting its destination (server, protocol) " +
      'needs the Access activity data permission as well as Modify host',
  );
}
