import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * An MCP tool result as the text a tool result message carries: text parts as
 * they are, embedded text resources by their text, and a note for what a text
 * conversation cannot hold (images, audio, binary resources). A result with no
 * content but structured content gives its JSON.
 */
export function toolResultText(result: CallToolResult): string {
  const parts = result.content.map((item): string => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'image':
      case 'audio':
        return `[${item.type} (${item.mimeType}, ${base64Bytes(item.data)} bytes) not shown]`;
      case 'resource':
        return 'text' in item.resource
          ? item.resource.text
          : `[resource ${item.resource.uri} (${item.resource.mimeType ?? 'binary'}, ${base64Bytes(item.resource.blob)} bytes) not shown]`;
      case 'resource_link':
        return `[resource ${item.uri}${item.name ? ` "${item.name}"` : ''}]`;
      default: {
        const exhaustive: never = item;
        return JSON.stringify(exhaustive);
      }
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4);
}
