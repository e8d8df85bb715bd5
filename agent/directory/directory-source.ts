/**
 * The directory source of one domain (docs/directory.md, agent/monitor/activity-source.ts): every
 * polling interval it opens (or reuses) a bound session and reads what changed since the state
 * committed last: the accesslog after the saved cursor when the account can read one, else a
 * comparison with the saved snapshot. Records and the new cursor or snapshot go to the pipeline
 * in one submission (`commitWith`), so a stop or a crash at any point records every change once.
 * The first poll of a domain (or of a new server or base DN) takes a baseline and records nothing.
 * A failed poll leaves the state as it was, sets the domain's status, and the next poll retries.
 */
import type { NewActivityRecord } from '../../shared/activity-record.js';
import type { DomainSettings } from '../config/directory-schema.js';
import type { Logger } from '../log/logger.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import type { PipelineItem } from '../pipeline/pipeline-item.js';
import type { ActivitySource, ActivitySourceStatus, SourceCounters } from '../monitor/activity-source.js';
import { accesslogCursorText, parseAccesslogCursor } from './accesslog-cursor.js';
import { baselineCursor, canReadAccesslog, completeClasses, readWrites } from './accesslog-reader.js';
import type { ChangesPolicy } from './changes-selection.js';
import { recordsOf, type DirectoryChange, type RecordContext } from './directory-change.js';
import type { DirectoryCursor, DirectoryStateTable, SnapshotOp } from './directory-state.js';
import type { DomainStatusBoard } from './domain-status.js';
import { effectiveBaseDn, openSession, type LdapSession } from './ldap-session.js';
import { SessionError } from './session-failure.js';
import { pollSnapshot } from './snapshot-changes.js';
import { readSnapshot } from './snapshot-reader.js';

export const DATA_SOURCE_LDAP = 'LDAP Directory';
export const DATA_SOURCE_AD = 'Active Directory';

export interface DirectorySourceOptions {
  domain: DomainSettings;
  policies: ChangesPolicy[];
  password: () => Promise<string | null>;
  pipeline: Pipeline;
  state: DirectoryStateTable;
  status: DomainStatusBoard;
  log: Logger;
  /** Per-operation LDAP timeout (tests shorten it). */
  timeoutMs?: number;
}

interface PollResult {
  items: PipelineItem[];
  cursor: DirectoryCursor;
  ops?: SnapshotOp[];
  replaceSnapshot?: boolean;
  baseline: boolean;
}

export class DirectorySource implements ActivitySource {
  private session: LdapSession | null = null;
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> = Promise.resolve();
  private stopped = false;
  private mode: 'accesslog' | 'snapshot' | null = null;
  private readonly counters = { recordsSubmitted: 0, fullScans: 0, recoveredByListing: 0, polls: 0, failedPolls: 0 };

  constructor(private readonly o: DirectorySourceOptions) {}

  /** The ActivitySource's owner id: here the domain's. Its records feed the domain's outputs. */
  get hostId(): string {
    return this.o.domain.id;
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.poll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
    await this.closeSession();
  }

  rescan(): Promise<void> {
    return this.poll();
  }

  settle(): Promise<void> {
    return this.current;
  }

  status(): ActivitySourceStatus {
    const why = 'the accesslog names the actor; a snapshot comparison cannot';
    return {
      attribution: this.mode === 'accesslog' ? 'process' : 'none',
      ...(this.mode === 'accesslog' ? {} : { attributionReason: why }),
      counters: this.counters as SourceCounters,
    };
  }

  /** Runs one poll after the one in progress, then schedules the next. */
  private poll(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.current = this.current.then(async () => {
      if (this.stopped) return;
      await this.pollOnce();
      if (!this.stopped) {
        this.timer = setTimeout(() => void this.poll(), this.o.domain.pollingIntervalSeconds * 1000);
        this.timer.unref?.();
      }
    });
    return this.current;
  }

  private async pollOnce(): Promise<void> {
    const { domain, status, log } = this.o;
    this.counters.polls++;
    try {
      let result: PollResult;
      try {
        result = await this.read(await this.openedSession());
      } catch (error) {
        // A session kept from an earlier poll may have been closed by the server meanwhile.
        if (error instanceof SessionError || this.session === null) throw error;
        await this.closeSession();
        result = await this.read(await this.openedSession());
      }
      if (this.stopped) return;
      const { items, cursor, ops, replaceSnapshot } = result;
      await this.o.pipeline.submit({
        items,
        commitWith: () => this.o.state.save(domain.id, cursor, ops ?? [], replaceSnapshot ?? false),
      });
      this.counters.recordsSubmitted += items.length;
      const how =
        this.mode === 'accesslog'
          ? 'from the accesslog (who made each change is recorded)'
          : 'by comparing snapshots (the directory keeps no readable accesslog: Who is unknown)';
      status.set(
        domain.id,
        'OK',
        `Monitoring ${this.o.policies.length} Changes polic${this.o.policies.length === 1 ? 'y' : 'ies'}`,
        `Changes are read ${how}.`,
      );
    } catch (error) {
      this.counters.failedPolls++;
      await this.closeSession();
      const err = error as Error;
      const kind = error instanceof SessionError ? error.kind : 'read';
      const type = kind === 'unreachable' || kind === 'read' ? 'Warning' : 'Error';
      const summary =
        kind === 'unreachable'
          ? 'The directory server cannot be reached'
          : kind === 'bind'
            ? 'The directory refused the bind'
            : kind === 'tls'
              ? 'The TLS connection to the directory failed'
              : kind === 'protocol'
                ? 'The server does not answer as an LDAP server'
                : 'Reading the directory failed';
      const previous = status.get(domain.id);
      status.set(domain.id, type, summary, `${err.message}. Retrying every ${domain.pollingIntervalSeconds} s.`);
      if (previous?.summary !== summary) log.warn('directory poll failed', { domain: domain.name, error: err.message });
    }
  }

  private async openedSession(): Promise<LdapSession> {
    this.session ??= await openSession(this.o.domain, await this.o.password(), {
      ...(this.o.timeoutMs !== undefined ? { timeoutMs: this.o.timeoutMs } : {}),
    });
    return this.session;
  }

  private async closeSession(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.close();
  }

  private context(session: LdapSession): RecordContext {
    return {
      domainId: this.o.domain.id,
      domainName: this.o.domain.name,
      server: session.host,
      dataSource: session.rootDse.isActiveDirectory ? DATA_SOURCE_AD : DATA_SOURCE_LDAP,
    };
  }

  private items(changes: DirectoryChange[], context: RecordContext): PipelineItem[] {
    const items: PipelineItem[] = [];
    for (const change of changes) {
      for (const record of recordsOf(change, this.o.policies, context)) items.push(this.item(record, change));
    }
    return items;
  }

  private item(record: NewActivityRecord, change: DirectoryChange): PipelineItem {
    return { record, timeMs: change.when.getTime(), domainId: this.o.domain.id };
  }

  private async read(session: LdapSession): Promise<PollResult> {
    const { domain, state } = this.o;
    const baseDn = effectiveBaseDn(domain, session.rootDse);
    if (baseDn === '') throw new Error('the server names no naming context: set the domain’s base DN');
    const scope = JSON.stringify([domain.ldapServer.toLowerCase(), baseDn.toLowerCase()]);
    const saved = state.cursor(domain.id);
    const accesslog = await canReadAccesslog(session.client);
    this.mode = accesslog ? 'accesslog' : 'snapshot';
    const fresh = saved === null || saved.scope !== scope || saved.mode !== this.mode;
    if (accesslog) {
      if (fresh) {
        const cursor = accesslogCursorText(await baselineCursor(session.client));
        return { items: [], cursor: { scope, mode: 'accesslog', cursor }, baseline: true };
      }
      const read = await readWrites(session.client, baseDn, parseAccesslogCursor(saved.cursor));
      const writes = read.writes;
      await completeClasses(session.client, baseDn, writes);
      const cursor = accesslogCursorText(read.cursor);
      const changes = writes.map((w) => w.change);
      return {
        items: this.items(changes, this.context(session)),
        cursor: { scope, mode: 'accesslog', cursor },
        baseline: false,
      };
    }
    this.counters.fullScans++;
    const cursor: DirectoryCursor = { scope, mode: 'snapshot', cursor: '' };
    if (fresh) {
      const now = await readSnapshot(session.client, baseDn);
      const ops = now.map((object): SnapshotOp => ({ op: 'put', object }));
      return { items: [], cursor, ops, replaceSnapshot: true, baseline: true };
    }
    const { changes, ops } = await pollSnapshot(session.client, baseDn, state, domain.id, new Date());
    return { items: this.items(changes, this.context(session)), cursor, ops, baseline: false };
  }
}
