import { geminiPartProblem } from './attachment-parts';
import { unseal } from './reasoning-seals';

/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON, checked field by field */

// The fields the Gemini API knows; it refuses any other ("Invalid JSON payload received. Unknown name …").
const requestFields = [
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
  'serviceTier',
];
const partFields = ['text', 'thought', 'thoughtSignature', 'functionCall', 'functionResponse', 'inlineData', 'fileData'];

/**
 * What the Gemini API (`generateContent`, `streamGenerateContent`) refuses with 400, in its own words: unknown
 * fields, a conversation that does not open with a user turn, empty parts, a function call turn that does not follow
 * a user or function response turn, function responses that do not answer the calls before them one for one, and a
 * thought signature it did not issue (or, for Gemini 3, a function call of the current turn without one).
 */
export function geminiProblem(body: any, path: string): string | undefined {
  const unknown = Object.keys(body ?? {}).find((key) => !requestFields.includes(key));
  if (unknown) return `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`;
  const contents: any[] = body?.contents;
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  if (contents[0].role !== 'user') return 'Please ensure that multiturn requests start with a user turn.';
  if (body.toolConfig && !(body.tools ?? []).some((tool: any) => Array.isArray(tool.functionDeclarations)))
    return 'Function calling config is set without function_declarations.';
  const gemini3 = /models\/gemini-3/.test(path);
  let lastUserText = -1;
  for (const [index, content] of contents.entries()) {
    if (content.role !== 'user' && content.role !== 'model') return 'Please use a valid role: user, model.';
    const parts: any[] = content.parts;
    if (!Array.isArray(parts) || parts.length === 0)
      return `* GenerateContentRequest.contents[${index}].parts: contents.parts must not be empty.`;
    for (const [partIndex, part] of parts.entries()) {
      const field = Object.keys(part).find((key) => !partFields.includes(key));
      if (field)
        return `Invalid JSON payload received. Unknown name "${field}" at 'contents[${index}].parts[${partIndex}]': Cannot find field.`;
      const inlineProblem = geminiPartProblem(part, index, partIndex);
      if (inlineProblem) return inlineProblem;
    }
    if (content.role === 'user' && parts.some((part) => typeof part.text === 'string')) lastUserText = index;
  }
  for (const [index, content] of contents.entries()) {
    const calls = content.parts.filter((part: any) => part.functionCall);
    const responses = content.parts.filter((part: any) => part.functionResponse);
    const before = contents[index - 1];
    if (calls.length > 0) {
      if (content.role !== 'model' || before?.role !== 'user')
        return 'Please ensure that function call turn comes immediately after a user turn or after a function response turn.';
      const after = contents[index + 1];
      const answered = after?.parts.filter((part: any) => part.functionResponse) ?? [];
      if (answered.length !== calls.length)
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    if (responses.length > 0) {
      const asked = before?.role === 'model' ? before.parts.filter((part: any) => part.functionCall) : [];
      if (asked.length === 0) return 'Please ensure that function response turn comes immediately after a function call turn.';
      const names = asked.map((part: any) => part.functionCall.name).sort();
      const answeredNames = responses.map((part: any) => part.functionResponse.name).sort();
      if (names.join('\n') !== answeredNames.join('\n'))
        return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    if (content.role !== 'model') continue;
    for (const part of content.parts) {
      const signed = part.functionCall?.name ?? part.text ?? '';
      if (
        part.thoughtSignature !== undefined &&
        part.thoughtSignature !== skipValidator &&
        !unseal(part.thoughtSignature, signed)
      )
        return 'Thought signature is not valid.';
      if (gemini3 && part.functionCall && index > lastUserText && part.thoughtSignature === undefined && part === calls[0])
        return 'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly.';
    }
  }
  return undefined;
}

// Google's documented value for a function call whose signature was lost (the AI SDK sends it then, with a warning).
const skipValidator = 'skip_thought_signature_validator';
