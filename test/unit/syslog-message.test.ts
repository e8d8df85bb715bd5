/** RFC 5424 messages and RFC 6587 framing, byte for byte. */
import { describe, expect, it } from 'vitest';
import { formatRfc5424, frame, headerField, renderTemplate, truncateUtf8 } from '../../agent/outputs/syslog-message.js';

describe('syslog messages', () => {
  it('formats the RFC 5424 header: <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG', () => {
    const message = formatRfc5424({
      timeMs: Date.parse('2026-11-22T10:15:30.123Z'),
      hostname: 'desk 01',
      procId: 4242,
      msgId: 'Added',
      msg: 'Action="Added"',
    });
    // facility 13 (log audit) * 8 + severity 5 (notice) = 109; SP is not allowed in HOSTNAME.
    expect(message).toBe('<109>1 2026-11-22T10:15:30.123Z desk01 Vigil 4242 Added - Action="Added"');
  });

  it('keeps header fields to printable US-ASCII within their lengths, "-" when empty', () => {
    expect(headerField('', 32)).toBe('-');
    expect(headerField('é', 32)).toBe('-');
    expect(headerField('x'.repeat(40), 32)).toHaveLength(32);
  });

  it('frames with octet counting or a trailer (RFC 6587 §3.4.1, RFC 6587 §3.4.2)', () => {
    expect(frame('<109>1 – x', 'Rfc5425').toString()).toBe('12 <109>1 – x'); // length in bytes, not characters
    expect(frame('m', 'Lf').toString()).toBe('m\n');
    expect(frame('m', 'CrLf').toString()).toBe('m\r\n');
    expect(frame('m', 'Cr').toString()).toBe('m\r');
    expect(frame('m', 'Nul').toString()).toBe('m\0');
  });

  it('fills a template, escaping quotes, backslashes and control characters; unknown names stay', () => {
    const out = renderTemplate('What="{What}" Who="{Who}" {Unknown}', {
      What: 'C:\\dir\\"odd"\nname',
      Who: 'HOST\\user',
    });
    expect(out).toBe('What="C:\\\\dir\\\\\\"odd\\"\\nname" Who="HOST\\\\user" {Unknown}');
  });

  it('cuts a long datagram on a UTF-8 character boundary', () => {
    expect(truncateUtf8('aé', 2).toString()).toBe('a');
    expect(truncateUtf8('abc', 10).toString()).toBe('abc');
  });
});
