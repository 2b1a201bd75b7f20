import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type { Message, ReasoningPart, ToolResultMessage } from '../../core/messages';
import { replyParts, type ReplyPart } from '../../core/reply-parts';
import { conversationStartText } from '../anthropic/prepare-request';
import type { AttachmentPart } from '../../core/attachments';
import { attachmentData, attachmentKind, attachmentText, omittedText, toolAttachmentsIntro } from '../attachment-parts';

/**
 * A thinking part with this id carries no reasoning: it is the provider metadata of the tool call right after it
 * (Gemini's `thoughtSignature` rides on a function call), kept in the reply's order so that it goes back with its
 * call even after the call's id was made unique (core/call-ids.ts).
 */
export const toolCallMetadataId = 'ai-sdk:tool-call';

/** How a conversation is sent to one model: which thinking is its own, and the ids its API accepts. */
export interface PromptOptions {
  /** Thinking sent back: only the provider's own, from this model; the rest is left out. */
  keepThinking: (part: ReasoningPart) => boolean;
  /** A tool-call id as the API accepts it (Mistral: nine letters and digits); the same id every time. */
  wireCallId: (id: string) => string;
  /**
   * The model's specification: a file part's data is `{ type: 'data', data }` in v4, the base64 itself in v3 (absent:
   * v4).
   */
  specificationVersion?: 'v3' | 'v4';
  /**
   * Whether the package sends a tool result's media parts as media (takesToolResultMedia). One that does not would
   * stringify them, base64 and all, into the tool message's text: for it a tool's images follow the round's results
   * in a user message instead, as for OpenAI Chat.
   */
  toolResultMedia?: boolean;
}

/**
 * The packages whose APIs take images in a tool result and which convert the AI SDK's `content` output to them
 * (`LanguageModel.provider`: `google.generative-ai`, `google.vertex.chat`, `anthropic.messages`, `openai.responses`,
 * `amazon-bedrock`). The chat-completion packages (`openai.chat`, `mistral.chat`, and OpenAI-compatible ones)
 * stringify it.
 */
export function takesToolResultMedia(provider: string): boolean {
  return /^(google|vertex|anthropic|openai\.responses|amazon-bedrock|bedrock)/.test(provider);
}

/**
 * Neutral messages → the AI SDK's prompt (LanguageModelV4Prompt; v3's is the same for these parts), once, here. The
 * system messages go first, as one (the packages refuse one after the conversation has begun); a conversation that
 * begins with the assistant gets a user turn first (Gemini, like Anthropic, wants a user turn to open it);
 * consecutive tool results form one tool message, answering the calls of the message before; blank text and empty
 * replies are left out. The model's own thinking goes back with the provider metadata it came with.
 */
export function toLanguageModelPrompt(messages: Message[], options: PromptOptions): LanguageModelV4Prompt {
  const system = messages.flatMap((message) => (message.role === 'system' && message.content.trim() ? [message.content] : []));
  const prompt: LanguageModelV4Message[] = [];
  // A tool's images, for a package that takes none in a tool result: they follow the round's results.
  let fromTools: UserPart[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' && fromTools.length > 0) {
      prompt.push({ role: 'user', content: fromTools });
      fromTools = [];
    }
    switch (message.role) {
      case 'system':
        break;
      case 'user': {
        // Every attachment as a file part (the AI SDK's own shape for images and documents), text ones as text.
        const files = (message.attachments ?? []).map((part) => languageModelPart(part, options.specificationVersion));
        const text = message.content.trim() ? [{ type: 'text' as const, text: message.content }] : [];
        if (files.length + text.length > 0) prompt.push({ role: 'user', content: [...text, ...files] });
        break;
      }
      case 'assistant': {
        const content = assistantContent(replyParts(message, options.keepThinking), options.wireCallId);
        if (content.some((part) => part.type !== 'reasoning')) prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const result = {
          type: 'tool-result' as const,
          toolCallId: options.wireCallId(message.toolCallId),
          toolName: message.toolName,
          output:
            options.toolResultMedia === false
              ? toolResultOutput({ ...message, attachments: undefined })
              : toolResultOutput(message, options.specificationVersion),
        };
        if (options.toolResultMedia === false && message.attachments?.length) {
          fromTools.push(
            { type: 'text', text: toolAttachmentsIntro(message) },
            ...message.attachments.map((part) => languageModelPart(part, options.specificationVersion)),
          );
        }
        const last = prompt[prompt.length - 1];
        if (last?.role === 'tool') last.content.push(result);
        else prompt.push({ role: 'tool', content: [result] });
        break;
      }
      default: {
        const exhaustive: never = message;
        throw new Error(`unknown message ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  if (fromTools.length > 0) prompt.push({ role: 'user', content: fromTools });
  const opening: LanguageModelV4Message[] =
    prompt[0] !== undefined && prompt[0].role !== 'user'
      ? [{ role: 'user', content: [{ type: 'text', text: conversationStartText }] }]
      : [];
  return [...(system.length > 0 ? [{ role: 'system' as const, content: system.join('\n\n') }] : []), ...opening, ...prompt];
}

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

function assistantContent(parts: ReplyPart[], wireCallId: (id: string) => string): AssistantPart[] {
  const content: AssistantPart[] = [];
  let callMetadata: SharedV4ProviderOptions | undefined;
  for (const part of parts) {
    switch (part.type) {
      case 'text':
        if (part.text) content.push({ type: 'text', text: part.text });
        break;
      case 'tool_call': {
        const call: LanguageModelV4ToolCallPart = {
          type: 'tool-call',
          toolCallId: wireCallId(part.call.id),
          toolName: part.call.name,
          input: argumentsForReplay(part.call.arguments),
          ...(callMetadata && { providerOptions: callMetadata }),
        };
        content.push(call);
        callMetadata = undefined;
        break;
      }
      case 'thinking': {
        const metadata = parseMetadata(part.signature);
        if (part.id === toolCallMetadataId) callMetadata = metadata;
        else content.push({ type: 'reasoning', text: part.text, ...(metadata && { providerOptions: metadata }) });
        break;
      }
      case 'redacted_thinking':
        // The AI SDK has no redacted reasoning of its own: what a package redacts stays in its metadata.
        break;
      default: {
        const exhaustive: never = part;
        throw new Error(`unknown reply part ${JSON.stringify(exhaustive)}`);
      }
    }
  }
  return content;
}

/** The metadata a provider attached, as stored (JSON text); anything else (a part of another shape) carries none. */
function parseMetadata(signature: string | undefined): SharedV4ProviderOptions | undefined {
  if (signature === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(signature);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as SharedV4ProviderOptions) : undefined;
  } catch {
    return undefined;
  }
}

// The packages want a tool call's input as a value. Arguments that were not valid JSON (the tool result already told
// the model) go back wrapped, not dropped, as for Anthropic.
function argumentsForReplay(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // fall through
  }
  return { invalid_arguments: text };
}

type UserPart = Extract<LanguageModelV4Message, { role: 'user' }>['content'][number];

/** An attachment as a prompt part: a `file` part with its base64 data and media type; a text file as text. */
function languageModelPart(part: AttachmentPart, specificationVersion: 'v3' | 'v4' = 'v4'): UserPart {
  if (attachmentKind(part) === 'text') return { type: 'text', text: attachmentText(part) };
  if (attachmentKind(part) === 'omitted') return { type: 'text', text: omittedText(part) };
  const data = attachmentData(part);
  return {
    type: 'file',
    // v3's FilePart takes the base64 string itself; the v4 type is the one this file is written against.
    data: specificationVersion === 'v3' ? (data as unknown as SharedV4FileData) : { type: 'data', data },
    mediaType: part.mediaType,
    ...(part.name && { filename: part.name }),
  };
}

type ToolResultOutput = Extract<LanguageModelV4Message, { role: 'tool' }>['content'][number] extends infer Part
  ? Part extends { type: 'tool-result'; output: infer Output }
    ? Output
    : never
  : never;
type ContentOutputPart = Extract<ToolResultOutput, { type: 'content' }>['value'][number];

/**
 * A tool result's output: its text, or with images and files the AI SDK's `content` output, its text then a media
 * part for each (v4's `file` with `{ type: 'data' }`, v3's `file-data` with the base64 itself).
 */
function toolResultOutput(message: ToolResultMessage, specificationVersion: 'v3' | 'v4' = 'v4'): ToolResultOutput {
  if (!message.attachments?.length) {
    return message.isError ? { type: 'error-text', value: message.content } : { type: 'text', value: message.content };
  }
  const parts = message.attachments.map((part): ContentOutputPart => {
    if (attachmentKind(part) === 'text') return { type: 'text', text: attachmentText(part) };
    if (attachmentKind(part) === 'omitted') return { type: 'text', text: omittedText(part) };
    const data = attachmentData(part);
    const filename = part.name && { filename: part.name };
    if (specificationVersion === 'v3') {
      // v3's content output names bytes `file-data`, with the base64 itself (LanguageModelV3ToolResultOutput).
      return { type: 'file-data', data, mediaType: part.mediaType, ...filename } as unknown as ContentOutputPart;
    }
    return { type: 'file', data: { type: 'data', data }, mediaType: part.mediaType, ...filename };
  });
  return { type: 'content', value: [{ type: 'text', text: message.content }, ...parts] };
}
