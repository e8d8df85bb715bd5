/**
 * Checks shared by the request readers: the root element and its namespace (per vendor
 * profile), no stray attributes or text. Shape errors are XMLError; a value that is wrong
 * inside a correct shape is the caller's InputError.
 */
import { ErrorCodes, xmlError } from './audit-errors.js';
import type { XmlElement } from './xml-document.js';

/**
 * The root must be `name` in the profile's namespace (or, for hand-written requests, in no
 * namespace); every descendant in the same namespace as the root.
 */
export function expectRoot(root: XmlElement, name: string, namespace: string): void {
  if (root.name !== name) {
    throw xmlError(ErrorCodes.xmlSchema, `expected the root element ${name}, not ${root.name}`, root.path);
  }
  if (root.namespace !== null && root.namespace !== namespace) {
    throw xmlError(
      ErrorCodes.xmlSchema,
      `the namespace of ${name} must be ${namespace}, not ${root.namespace}`,
      root.path,
    );
  }
  const check = (element: XmlElement): void => {
    for (const child of element.children) {
      if (child.namespace !== root.namespace) {
        throw xmlError(
          ErrorCodes.xmlSchema,
          `element ${child.name} is in namespace ${child.namespace ?? '(none)'}, expected ${root.namespace ?? '(none)'}`,
          child.path,
        );
      }
      check(child);
    }
  };
  check(root);
}

/** Refuses attributes other than `allowed`. */
export function expectAttributes(element: XmlElement, allowed: readonly string[] = []): void {
  for (const name of element.attributes.keys()) {
    if (!allowed.includes(name)) {
      throw xmlError(
        ErrorCodes.xmlSchema,
        `element ${element.name} has no attribute ${name}`,
        `${element.path}/@${name}`,
      );
    }
  }
}

/** An element that holds only text (no child elements). */
export function textOf(element: XmlElement): string {
  if (element.children.length > 0) {
    throw xmlError(
      ErrorCodes.xmlSchema,
      `element ${element.name} must hold text, not elements`,
      element.children[0]!.path,
    );
  }
  return element.text;
}

/** An element that holds only elements (whitespace aside). */
export function childrenOf(element: XmlElement): XmlElement[] {
  if (element.text !== '') {
    throw xmlError(ErrorCodes.xmlSchema, `element ${element.name} must hold elements, not text`, element.path);
  }
  return element.children;
}
