import { visible } from './visible-text';

/**
 * A tool call's arguments as the run's stream shows them (`tool_start`'s `input`): for watching, so bounded, because
 * every stream event is carried in the run's history (in the results of the subscribers' polls, and across
 * continue-as-new). The activity still gets the arguments whole, and the conversation keeps them as the model wrote
 * them; this is only what a page or an AG-UI client shows on the tool's card.
 *
 * The model is untrusted, so the arguments may be built to hurt: one string of megabytes, thousands of keys, nesting
 * as deep as the parser allows, a `__proto__` key, control and bidirectional characters. Here each string and key is
 * cut to `streamInputStringChars` (saying how much was cut), containers deeper than `streamInputDepth` are replaced
 * by a marker, and a budget of `streamInputChars` over the whole value stops the walk (the rest replaced by one
 * marker per open container), so the result's JSON stays within a few kilobytes whatever came in. Characters that
 * hide or fake text are made visible (core/visible-text.ts), as in approval descriptions; keys are copied as data
 * (Object.fromEntries), so `__proto__` stays an ordinary key and never reaches a prototype.
 */

/** Characters of one string value or key the stream keeps; the rest is cut, and the cut says how many. */
export const streamInputStringChars = 200;
/** Objects and arrays nested deeper than this are replaced by a marker. */
export const streamInputDepth = 6;
/** About how many characters of strings, keys and values the stream's input holds in all. */
export const streamInputChars = 2_000;

/** The key under which an object says what it left out. */
export const omittedKey = '…';

export function streamToolInput(args: unknown): unknown {
  const walk = new BoundedWalk();
  return walk.value(args, 0);
}

class BoundedWalk {
  private left = streamInputChars;

  value(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value === 'number' || typeof value === 'boolean') {
      this.left -= String(value).length;
      return value;
    }
    if (typeof value !== 'object') return null;
    if (depth >= streamInputDepth) {
      this.left -= 40;
      return `[nested deeper than ${streamInputDepth} levels: not shown]`;
    }
    return Array.isArray(value) ? this.array(value, depth) : this.object(value as Record<string, unknown>, depth);
  }

  private array(items: unknown[], depth: number): unknown[] {
    const out: unknown[] = [];
    for (const item of items) {
      if (this.left <= 0) {
        out.push(`[${items.length - out.length} more items not shown]`);
        break;
      }
      this.left -= 1;
      out.push(this.value(item, depth + 1));
    }
    return out;
  }

  private object(object: Record<string, unknown>, depth: number): Record<string, unknown> {
    const entries: Array<[string, unknown]> = [];
    const keys = Object.keys(object);
    for (const key of keys) {
      if (this.left <= 0) {
        entries.push([omittedKey, `${keys.length - entries.length} more keys not shown`]);
        break;
      }
      const shownKey = key === omittedKey ? `${omittedKey} ` : this.text(key);
      entries.push([shownKey, this.value(object[key], depth + 1)]);
    }
    // fromEntries defines each key as an own property: a `__proto__` key stays data.
    return Object.fromEntries(entries);
  }

  private text(text: string): string {
    const cut = cutAt(text, streamInputStringChars);
    const shown = visible(cut, { keepNewlines: true });
    this.left -= shown.length;
    return cut.length === text.length ? shown : `${shown}… [${text.length - cut.length} more characters not shown]`;
  }
}

/** The first `limit` characters, never ending inside a surrogate pair. */
function cutAt(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}
