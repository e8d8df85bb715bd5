/**
 * Distinguished names compared the way a reader expects (RFC 4514 string form): attribute types
 * and values without case, no spaces around `,` and `=`. Enough for subtree tests and renames;
 * escaped commas (`\,`) are kept as they are.
 */

/** The lower-case form of a DN with the spaces around separators removed. */
export function normalizeDn(dn: string): string {
  return splitDn(dn)
    .map((rdn) =>
      rdn
        .split('=')
        .map((part) => part.trim())
        .join('='),
    )
    .join(',')
    .toLowerCase();
}

/** The RDNs of a DN, first (leaf) first; a `\,` stays inside its RDN. */
export function splitDn(dn: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < dn.length; i++) {
    const ch = dn[i]!;
    if (ch === '\\' && i + 1 < dn.length) {
      current += ch + dn[++i]!;
    } else if (ch === ',') {
      parts.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim() !== '' || parts.length > 0) parts.push(current.trim());
  return parts.filter((p) => p !== '');
}

/** Whether `dn` is `base` or below it (both normalised). */
export function isWithin(dn: string, base: string): boolean {
  if (base === '') return true;
  return dn === base || dn.endsWith(`,${base}`);
}

/** The parent of a DN ('' for a single RDN). */
export function parentDn(dn: string): string {
  return splitDn(dn).slice(1).join(',');
}

/** The leaf RDN of a DN. */
export function leafRdn(dn: string): string {
  return splitDn(dn)[0] ?? '';
}
