/* eslint-disable @typescript-eslint/no-explicit-any -- wire JSON, checked field by field */

/**
 * What the real APIs refuse in image and file parts, in their own words (as near as their documentation and errors
 * give them), for the fake model server: a data URL that is not one, base64 that is not base64, a media type that is
 * not the bytes' (Anthropic checks), an image over the API's size limit, an image where the API takes none (a system
 * or tool message), a file part without its name.
 */

const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** Base64 text, checked in linear time (a pattern with a repeated group overflows the stack on megabytes). */
function isBase64(text: string): boolean {
  if (text.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(text)) return false;
  const padding = text.indexOf('=');
  return padding < 0 || (padding >= text.length - 2 && /^=+$/.test(text.slice(padding)));
}
const dataUrlPattern = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/s;

/** The media type of bytes by their magic number, as the APIs read it. */
function actualImageType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return undefined;
}

function dataUrl(value: unknown): { mediaType: string; bytes: Buffer } | undefined {
  const match = typeof value === 'string' ? dataUrlPattern.exec(value) : null;
  if (!match || !isBase64(match[2]!)) return undefined;
  return { mediaType: match[1]!, bytes: Buffer.from(match[2]!, 'base64') };
}

/** OpenAI Chat Completions: `image_url` and `file` parts, in user messages only. */
export function openaiChatPartProblem(message: any, index: number): string | undefined {
  if (!Array.isArray(message.content)) return undefined;
  for (const [position, part] of message.content.entries()) {
    const at = `messages[${index}].content[${position}]`;
    if (part?.type === 'image_url') {
      if (message.role !== 'user') {
        return `Image URLs are only allowed for messages with role 'user', but this message with role '${message.role}' contains an image URL.`;
      }
      const url = part.image_url?.url;
      if (typeof url === 'string' && /^https?:\/\//.test(url)) continue;
      const parsed = dataUrl(url);
      if (!parsed || !imageTypes.includes(parsed.mediaType)) {
        return `Invalid '${at}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.`;
      }
      if (actualImageType(parsed.bytes) === undefined)
        return 'You uploaded an unsupported image. Please make sure your image is valid.';
    } else if (part?.type === 'file') {
      if (message.role !== 'user') return `Invalid '${at}': file content parts are only allowed for messages with role 'user'.`;
      const parsed = dataUrl(part.file?.file_data);
      if (part.file?.file_data !== undefined && !parsed)
        return `Invalid '${at}.file.file_data': expected a base64-encoded data URL.`;
      if (parsed && typeof part.file.filename !== 'string') return `Missing required parameter: '${at}.file.filename'.`;
    } else if (part?.type !== 'text') {
      return `Invalid value: '${String(part?.type)}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', 'audio', and 'file'.`;
    }
  }
  return undefined;
}

/**
 * OpenAI Responses: `input_image` and `input_file` parts, in user messages and in a `function_call_output` whose
 * output is a list of parts (the API takes a tool's images there); a function_call_output's list holds input parts only.
 */
export function openaiResponsesPartProblem(item: any, index: number): string | undefined {
  const isOutput = item?.type === 'function_call_output';
  const parts = isOutput ? item.output : item?.content;
  if (!Array.isArray(parts)) return undefined;
  for (const [position, part] of parts.entries()) {
    const at = isOutput ? `input[${index}].output[${position}]` : `input[${index}].content[${position}]`;
    if (isOutput && !['input_text', 'input_image', 'input_file'].includes(part?.type)) {
      return `Invalid value: '${String(part?.type)}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`;
    }
    if (part?.type === 'input_image') {
      if (item.role !== 'user' && !isOutput) return `Invalid '${at}': input_image is only allowed in messages with role 'user'.`;
      const url = part.image_url;
      if (typeof url === 'string' && /^https?:\/\//.test(url)) continue;
      const parsed = dataUrl(url);
      if (!parsed || !imageTypes.includes(parsed.mediaType) || !actualImageType(parsed.bytes)) {
        return `Invalid '${at}.image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.`;
      }
    } else if (part?.type === 'input_file') {
      if (item.role !== 'user' && !isOutput) return `Invalid '${at}': input_file is only allowed in messages with role 'user'.`;
      const parsed = dataUrl(part.file_data);
      if (!parsed) return `Invalid '${at}.file_data': expected a base64-encoded data URL.`;
      if (typeof part.filename !== 'string') return `Missing required parameter: '${at}.filename'.`;
      if (parsed.mediaType === 'application/pdf' && !parsed.bytes.subarray(0, 5).equals(Buffer.from('%PDF-')))
        return 'The file you uploaded is not a valid PDF.';
    } else if (!['input_text', 'output_text', 'refusal'].includes(part?.type)) {
      return `Invalid value: '${String(part?.type)}'. Supported values are: 'input_text', 'input_image', 'output_text', 'refusal', 'input_file', 'computer_screenshot', and 'summary_text'.`;
    }
  }
  return undefined;
}

const anthropicImageLimit = 5 * 1024 * 1024;

/**
 * Anthropic Messages: `image` and `document` blocks, base64 sources, in user messages only; inside a tool_result's
 * content too (its blocks are text, image, document or search_result), checked as a user message's.
 */
export function anthropicToolResultProblem(block: any, index: number, position: number): string | undefined {
  if (block?.type !== 'tool_result' || !Array.isArray(block.content)) return undefined;
  for (const [inner, part] of block.content.entries()) {
    if (!['text', 'image', 'document', 'search_result'].includes(part?.type)) {
      return `messages.${index}.content.${position}.tool_result.content.${inner}: Input tag '${String(part?.type)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
    }
    const problem = anthropicBlockProblem(part, index, position, 'user');
    if (problem)
      return problem.replace(
        `messages.${index}.content.${position}`,
        `messages.${index}.content.${position}.tool_result.content.${inner}`,
      );
  }
  return undefined;
}

/** Anthropic Messages: `image` and `document` blocks, base64 sources, in user messages only. */
export function anthropicBlockProblem(block: any, index: number, position: number, role: string): string | undefined {
  const at = `messages.${index}.content.${position}`;
  if (block?.type !== 'image' && block?.type !== 'document') return undefined;
  if (role !== 'user') return `${at}.${block.type}: ${block.type} blocks are only allowed in user messages`;
  const source = block.source;
  if (source?.type !== 'base64' && source?.type !== 'text' && source?.type !== 'url')
    return `${at}.${block.type}.source: Input tag '${String(source?.type)}' found using 'type' does not match any of the expected tags`;
  if (source.type !== 'base64') return undefined;
  if (typeof source.data !== 'string' || !isBase64(source.data))
    return `${at}.${block.type}.source.base64.data: invalid base64 data`;
  const bytes = Buffer.from(source.data, 'base64');
  if (block.type === 'image') {
    if (!imageTypes.includes(source.media_type))
      return `${at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`;
    const actual = actualImageType(bytes);
    if (actual !== source.media_type) {
      return `${at}.image.source.base64.data: The image was specified using the ${source.media_type} media type, but the image appears to be ${actual ? `a ${actual}` : 'not a valid'} image`;
    }
    if (bytes.length > anthropicImageLimit)
      return `${at}.image.source.base64: image exceeds 5 MB maximum: ${bytes.length} bytes > ${anthropicImageLimit} bytes`;
  } else {
    if (source.media_type !== 'application/pdf')
      return `${at}.document.source.base64.media_type: Input should be 'application/pdf'`;
    if (!bytes.subarray(0, 5).equals(Buffer.from('%PDF-')))
      return `${at}.document.source.base64.data: The PDF specified was not valid.`;
  }
  return undefined;
}

/** Gemini: an `inlineData` part names its mimeType and holds base64. */
export function geminiPartProblem(part: any, index: number, partIndex: number): string | undefined {
  const inline = part?.inlineData;
  if (!inline) return undefined;
  const at = `contents[${index}].parts[${partIndex}].inline_data`;
  if (typeof inline.mimeType !== 'string' || !inline.mimeType)
    return `* GenerateContentRequest.${at}.mime_type: mime_type must be set.`;
  if (typeof inline.data !== 'string' || !isBase64(inline.data))
    return `Invalid value at '${at}.data' (TYPE_BYTES), Base64 decoding failed for "${String(inline.data).slice(0, 20)}"`;
  if (inline.mimeType.startsWith('image/') && actualImageType(Buffer.from(inline.data, 'base64')) !== inline.mimeType)
    return 'Unable to process input image. Please retry or report in https://developers.generativeai.google/guide/troubleshooting';
  return undefined;
}
