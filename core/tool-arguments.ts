/**
 * A tool call's arguments as the model wrote them: JSON text, possibly
 * malformed, possibly hostile. Parsed here, once for the workflow and once for
 * the model activity's approval check, with the same rules, so that what a
 * person approves is read from the same value that runs.
 */

/** Deeper than this, arguments are refused: no tool takes them, and a value nested 100,000 levels deep cannot even be encoded as an activity's input (JSON.stringify runs out of stack). */
export const maxArgumentDepth = 64;

/** `problem` reads after "arguments": `are not valid JSON (…)`. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; problem: string };

export function parseToolArguments(text: string): ParsedArguments {
  // Counted before parsing, in one pass over the text, so a hostile nesting never reaches a recursive step.
  const depth = nestingDepth(text);
  if (depth > maxArgumentDepth)
    return { ok: false, problem: `nest ${depth} levels deep; at most ${maxArgumentDepth} are accepted` };
  try {
    return { ok: true, value: JSON.parse(text || '{}') };
  } catch (error) {
    return { ok: false, problem: `are not valid JSON (${(error as Error).message})` };
  }
}

/** How deep `[` and `{` nest in JSON text, outside strings. */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b /* [ */ || code === 0x7b /* { */) deepest = Math.max(deepest, ++depth);
    else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth--;
  }
  return deepest;
}
