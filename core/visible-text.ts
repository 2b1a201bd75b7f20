/**
 * Text from the model shown to a person who decides on it. Characters that hide,
 * reorder or fake text are made visible as escapes: controls (terminal escape
 * sequences included), zero-width and bidirectional formatting characters, line
 * and paragraph separators, unpaired surrogates, private-use and unassigned code
 * points, blank letters, and every space but the plain one. Newlines may be kept
 * where the text is shown as lines.
 */

// \p{Cf} covers zero-width (U+200B–U+200F, U+2060–U+2064, U+FEFF) and bidi (U+202A–U+202E, U+2066–U+2069, U+061C).
const hidingCharacters = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\u115F\u1160\u3164\uFFA0\u2800]/gu;

const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function visible(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(hidingCharacters, (character) => {
    if (character === ' ' || (options.keepNewlines && character === '\n')) return character;
    return named[character] ?? `\\u{${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`;
  });
}
