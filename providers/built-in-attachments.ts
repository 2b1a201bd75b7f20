import { attachmentMediaTypes } from '../core/attachments';
import type { AttachmentCapability } from './attachment-capability';

const megabyte = 1024 * 1024;

/**
 * What the built-in providers' APIs take (docs/attachments.md, with the sources): every type of core/attachments.ts,
 * within each API's published limits, checked before the call.
 *
 * OpenAI (Chat Completions and Responses): images up to 20 MB each, PDF files as `file_data`, 50 MB of files a
 * request (the API's request bound is 50 MB in all; base64 is a third larger, so 32 MB of bytes stay under it).
 * Models before image input (gpt-3.5, the o1-mini and o3-mini reasoning models) take none.
 */
export const openaiAttachments: AttachmentCapability = {
  mediaTypes: attachmentMediaTypes,
  maxImageBytes: 20 * megabyte,
  maxFileBytes: 32 * megabyte,
  maxRequestBytes: 32 * megabyte,
  acceptsImages: (model) => !/^(gpt-3\.5|o1-mini|o3-mini|gpt-4-0613|gpt-4-0314|gpt-4$)/.test(model),
};

/**
 * Anthropic Messages: images up to 5 MB each (the API refuses larger ones), PDFs as `document` blocks, a request of
 * at most 32 MB (base64 included: 24 MB of bytes). Claude 2 and Instant take no images.
 */
export const anthropicAttachments: AttachmentCapability = {
  mediaTypes: attachmentMediaTypes,
  maxImageBytes: 5 * megabyte,
  maxFileBytes: 24 * megabyte,
  maxRequestBytes: 24 * megabyte,
  acceptsImages: (model) => !/^claude-(2|instant)/.test(model),
};

/**
 * An AI SDK model, by default: every type as a `file` part, up to 20 MB a file and a request (Gemini's inline data
 * limit). A package whose models take less is registered with its own (aiSdkProvider's `attachments`).
 */
export const aiSdkAttachments: AttachmentCapability = {
  mediaTypes: attachmentMediaTypes,
  maxImageBytes: 20 * megabyte,
  maxFileBytes: 20 * megabyte,
  maxRequestBytes: 20 * megabyte,
};
