/**
 * What a Changes policy selects (docs/directory.md): operations, contexts (subtrees), object
 * classes, and attributes never reported. An empty list selects everything of its kind. The XML
 * is read in agent/resources/policy-xml.ts; this file only matches.
 */
import { normalizeDn, isWithin } from './dn.js';

export const DIRECTORY_ACTIONS = ['Added', 'Removed', 'Modified', 'Moved', 'Renamed'] as const;
export type DirectoryAction = (typeof DIRECTORY_ACTIONS)[number];

export interface ChangesSelection {
  operations: DirectoryAction[];
  contexts: string[];
  classes: string[];
  excludeAttributes: string[];
}

/** A policy the directory source applies: its name (the records' `Item`) and selection. */
export interface ChangesPolicy {
  id: string;
  name: string;
  selection: ChangesSelection;
}

export interface SelectableChange {
  action: DirectoryAction;
  /** The DN before the change and (moves, renames) after it. */
  dn: string;
  newDn?: string | undefined;
  objectClasses: readonly string[];
}

export function selects(selection: ChangesSelection, change: SelectableChange): boolean {
  if (selection.operations.length > 0 && !selection.operations.includes(change.action)) return false;
  if (selection.contexts.length > 0) {
    const dns = [change.dn, change.newDn].filter((dn): dn is string => dn !== undefined).map(normalizeDn);
    const contexts = selection.contexts.map(normalizeDn);
    if (!dns.some((dn) => contexts.some((context) => isWithin(dn, context)))) return false;
  }
  if (selection.classes.length > 0) {
    const have = new Set(change.objectClasses.map((c) => c.toLowerCase()));
    if (!selection.classes.some((c) => have.has(c.toLowerCase()))) return false;
  }
  return true;
}

export function isExcluded(selection: ChangesSelection, attribute: string): boolean {
  const lower = attribute.toLowerCase();
  return selection.excludeAttributes.some((a) => a.toLowerCase() === lower);
}
