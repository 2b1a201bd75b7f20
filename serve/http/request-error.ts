/**
 * A request refused, with the status to answer and words for the person: what the chat sessions, the body reader and
 * the MCP endpoint throw, and the endpoints answer. Named for the chat, where it began (`durable-agent/web` exports it).
 */
export class ChatRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
