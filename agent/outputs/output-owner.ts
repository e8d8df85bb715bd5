/**
 * Whose records an output receives: a host's file activity (host outputs) or a directory
 * domain's changes (domain outputs, docs/directory.md). Outputs and pipeline items name their
 * owner by one key, so the output manager hands each output exactly its owner's records.
 */
import type { DomainSettings } from '../config/directory-schema.js';
import type { DomainOutputSettings, HostSettings, OutputSettings } from '../config/monitoring-schema.js';
import { logFileBaseName } from '../config/monitoring-schema.js';
import type { StoredItem } from '../pipeline/pipeline-item.js';
import { compileDomainFilter, compileFileFilter, type ItemFilter } from './file-filter.js';

/** An output with its owner's settings: a host output and its host, or a domain output and its domain. */
export type OwnedOutput =
  | { output: OutputSettings; host: Pick<HostSettings, 'host'>; domain?: undefined }
  | { output: DomainOutputSettings; domain: Pick<DomainSettings, 'name'>; host?: undefined };

export function hostKey(hostId: string): string {
  return `host:${hostId}`;
}

export function domainKey(domainId: string): string {
  return `domain:${domainId}`;
}

/** The owner key of an output. */
export function ownerKeyOf(owned: OwnedOutput): string {
  return owned.domain === undefined ? hostKey(owned.output.hostId) : domainKey(owned.output.domainId);
}

/**
 * The owner key of a record, or undefined when no output receives it (self-audit, API writes).
 * Host outputs receive file activity only; domain outputs the domain's directory records.
 */
export function itemOwnerKey(item: StoredItem): string | undefined {
  if (item.domainId !== undefined) return domainKey(item.domainId);
  if (item.hostId !== undefined && item.file !== undefined) return hostKey(item.hostId);
  return undefined;
}

/** The log file name prefix: the output's own, else the host's or the domain's name made file-safe. */
export function ownedLogFileBase(owned: OwnedOutput): string {
  return owned.domain === undefined
    ? logFileBaseName(owned.output, { host: owned.host.host })
    : logFileBaseName(owned.output, { name: owned.domain.name });
}

/** Which of its owner's records the output passes on (its `fileFilter`). */
export function ownedFilter(owned: OwnedOutput): ItemFilter {
  return owned.domain === undefined
    ? compileFileFilter(owned.output.fileFilter)
    : compileDomainFilter(owned.output.fileFilter);
}
