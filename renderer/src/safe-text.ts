/**
 * Activity data is attacker-controlled (docs/console.md): file names and paths from watched
 * folders. Preact renders strings as text, never HTML; this module also makes invisible and
 * direction-changing characters visible, so a name with a right-to-left override (U+202E)
 * cannot pose as another name (docs/security.md, C08).
 */

// C0/C1 controls except tab, bidi embeddings/overrides/isolates, marks, zero-width characters.
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

export function visibleText(text: string): string {
  return text.replace(HIDDEN, (c) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
