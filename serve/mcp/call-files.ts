import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentRegistry } from '../../agents/registry';
import { AttachmentRefusedError, storeAttachments } from '../../client/attachment-input';
import { attachmentBounds, attachmentMediaTypes, type AttachmentPart } from '../../core/attachments';
import { AgentError } from '../../core/errors';
import { defaultAgentName } from '../../core/limits';
import { parseModelId } from '../../core/model-id';
import type { AgentInput } from '../../core/resolve-input';
import { attachmentRefusal } from '../../providers/attachment-capability';
import type { AttachmentStore } from '../../storage/attachment-store';

/**
 * Images and files sent with an agent tool's call (docs/mcp.md, "Files"), for an agent that declares it takes them
 * (defineAgent's `acceptsAttachments`): `files`, each `{ name, mimeType, data }` with the bytes in base64, the fields
 * of MCP's own image and resource content blocks. They are checked (their type against their bytes, the bounds) and
 * stored like any attachment before the run starts, and the run's prompt carries their references; a file refused
 * refuses the call, and no run starts.
 */

/** The `files` property of an agent tool's input schema. */
export const filesProperty = {
  type: 'array',
  maxItems: attachmentBounds.maxFiles,
  description:
    'Images and files for the agent to read with the task: PNG, JPEG, WebP, GIF, PDF or plain text, each its bytes in base64',
  items: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: "The file's name, shown to the agent" },
      mimeType: { type: 'string', enum: [...attachmentMediaTypes] },
      data: { type: 'string', contentEncoding: 'base64', description: "The file's bytes, base64" },
    },
    required: ['name', 'mimeType', 'data'],
    additionalProperties: false,
  },
} satisfies NonNullable<McpTool['inputSchema']['properties']>[string];

/** A call's files refused: the reason, for the tool's error result. */
export class CallFilesRefused extends AgentError {}

// At most this much base64 for one file: its 20 MiB, encoded. Checked before anything is decoded.
const maxBase64Chars = Math.ceil(attachmentBounds.maxFileBytes / 3) * 4;

/**
 * The call's `files`, checked and stored, as the references the run's prompt takes; none when absent. A shape that is
 * not the schema's, base64 that is not canonical base64, a file over the bounds, bytes that are not what they claim,
 * or a file the agent's model cannot take is a CallFilesRefused, and nothing is stored.
 */
export async function storeCallFiles(
  files: unknown,
  input: AgentInput,
  registry: AgentRegistry,
  store?: AttachmentStore,
): Promise<AttachmentPart[]> {
  if (files === undefined) return [];
  if (!Array.isArray(files)) throw new CallFilesRefused('"files" must be a list of { name, mimeType, data }');
  if (files.length > attachmentBounds.maxFiles)
    throw new CallFilesRefused(`${files.length} files; a call may carry at most ${attachmentBounds.maxFiles}`);
  const inputs = files.map((file: unknown, index) => decoded(file, index));
  const parts = await storeAttachments(inputs, store).catch((error: unknown) => {
    if (error instanceof AttachmentRefusedError) throw new CallFilesRefused(error.message);
    throw error;
  });
  const refusal = modelRefusal(parts, input, registry);
  if (refusal) throw new CallFilesRefused(refusal);
  return parts;
}

function decoded(file: unknown, index: number): { data: Uint8Array; mediaType: string; name: string } {
  const at = `files[${index}]`;
  if (typeof file !== 'object' || file === null || Array.isArray(file)) throw new CallFilesRefused(`${at} must be an object`);
  const { name, mimeType, data, ...rest } = file as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra !== undefined)
    throw new CallFilesRefused(`${at} has no field ${JSON.stringify(extra)}: it takes name, mimeType, data`);
  if (typeof name !== 'string' || name.trim() === '') throw new CallFilesRefused(`${at}.name must be a non-empty string`);
  if (typeof mimeType !== 'string') throw new CallFilesRefused(`${at}.mimeType must be a string`);
  if (typeof data !== 'string') throw new CallFilesRefused(`${at}.data must be base64 text`);
  if (data.length > maxBase64Chars) {
    throw new CallFilesRefused(`${at} (${name}) is over ${attachmentBounds.maxFileBytes} bytes, the most a file may be`);
  }
  const bytes = Buffer.from(data, 'base64');
  // Node skips what is not base64: only text that encodes back to itself is taken, so no stray bytes hide in it.
  if (bytes.toString('base64') !== data) throw new CallFilesRefused(`${at}.data (${name}) is not base64`);
  return { data: bytes, mediaType: mimeType, name };
}

/** Why the agent's model cannot take these files (no image input, over its API's limits), or undefined. */
function modelRefusal(parts: AttachmentPart[], input: AgentInput, registry: AgentRegistry): string | undefined {
  if (parts.length === 0) return undefined;
  const model = input.model ?? registry.agents.get(input.agent ?? defaultAgentName)?.model;
  if (model === undefined) return undefined;
  const id = parseModelId(model);
  const provider = registry.providers.get(id.provider);
  return provider && attachmentRefusal(provider, id.model, parts);
}
