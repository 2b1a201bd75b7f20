import { visible } from '../core/visible-text';

// C0 and C1 controls (ESC, CSI, OSC, BEL, backspace, a lone carriage return…) and the bidi overrides and isolates:
// what lets text move the cursor, erase or retitle the screen, write the clipboard, or read in another order.
const commanding = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

/**
 * Model and tool text made safe to write to a terminal: the characters that would
 * command it are shown as escapes (`\u{001B}[2K`), so the person reads what was
 * written instead of the terminal obeying it. Newlines and tabs stay (answers hold
 * code); a CRLF line end is a line end. Escaping one character at a time means a
 * sequence split across two streamed pieces is escaped just the same.
 */
export function printable(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(commanding, (character) => (character === '\n' || character === '\t' ? character : visible(character)));
}
