import type { ApprovalDecision } from '../core/result';
import { ChatRequestError } from './chat-sessions';
import { isRecord } from '../core/is-record';
import type { AttachmentInput } from '../client/attachment-input';
import { useChatFiles } from './input-files';

/** A chat id as useChat makes them (generateId: letters and digits), and anything URL- and workflow-id-safe like it. */
export const chatIdPattern = /^[A-Za-z0-9_-]{1,128}$/;

/** What a POST from useChat's DefaultChatTransport asks: a new message, or the answers to approval requests. */
export type ChatAsk =
  | { kind: 'message'; id: string; text: string; steer?: boolean; files?: AttachmentInput[] }
  | { kind: 'approvals'; id: string; decisions: Array<{ call: string; decision: ApprovalDecision }> };

/** A chat id (or an AG-UI threadId: `what` names it) as chatIdPattern, or 400: it becomes a workflow id. */
export function assertChatId(id: unknown, what = 'the chat id'): string {
  if (typeof id !== 'string' || !chatIdPattern.test(id)) {
    throw new ChatRequestError(400, `${what} must be 1 to 128 letters, digits, "-" or "_"`);
  }
  return id;
}

/**
 * Reads `{ id, messages, trigger, messageId, steer, editedArgs }` (`steer: true`, sent as useChat's request `body`,
 * makes the message steer the turn in progress; `editedArgs`, in the body too, maps an approval's id to the arguments
 * the person approved the call with instead of the model's, docs/policy.md). Only the newest message counts: the session holds the conversation,
 * so the earlier messages the client sends are not trusted or re-sent. A user message's text parts are the message;
 * an assistant message whose tool parts carry approval responses (useChat's addToolApprovalResponse) is decisions.
 */
export function readChatRequest(body: unknown): ChatAsk {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ChatRequestError(400, 'the body must be a JSON object { id, messages }');
  }
  const { id, messages, trigger, steer, editedArgs } = body as Record<string, unknown>;
  if (editedArgs !== undefined && (!isRecord(editedArgs) || !Object.values(editedArgs).every(isRecord)))
    throw new ChatRequestError(400, 'editedArgs must map approval ids to objects of arguments');
  if (steer !== undefined && typeof steer !== 'boolean') throw new ChatRequestError(400, 'steer must be true or false');
  const chatId = assertChatId(id);
  if (trigger === 'regenerate-message') {
    throw new ChatRequestError(400, 'regenerating a message is not supported: the session keeps every answer it gave');
  }
  if (!Array.isArray(messages) || messages.length === 0) throw new ChatRequestError(400, 'messages must be a non-empty array');
  const newest = messages[messages.length - 1] as Record<string, unknown> | null;
  if (typeof newest !== 'object' || newest === null || !Array.isArray(newest.parts)) {
    throw new ChatRequestError(400, 'the newest message must be an object with parts');
  }
  const parts = newest.parts as unknown[];
  if (newest.role === 'user') {
    const text = parts
      .flatMap((part) => (isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
      .join('');
    if (!text.trim()) throw new ChatRequestError(400, 'the newest message has no text');
    const files = useChatFiles(parts);
    return { kind: 'message', id: chatId, text, ...(steer === true && { steer: true }), ...(files.length > 0 && { files }) };
  }
  if (newest.role === 'assistant') {
    const decisions = parts.flatMap((part) => {
      if (!isRecord(part) || typeof part.type !== 'string') return [];
      if (!(part.type.startsWith('tool-') || part.type === 'dynamic-tool') || part.state !== 'approval-responded') return [];
      const approval = part.approval;
      if (!isRecord(approval) || typeof approval.id !== 'string' || typeof approval.approved !== 'boolean') return [];
      // The approval card's edits travel in the request's body (useChat's sendMessage/transport `body`), by approval id:
      // the approval response itself has no field for them.
      const edited = isRecord(editedArgs) && Object.hasOwn(editedArgs, approval.id) ? editedArgs[approval.id] : undefined;
      const decision: ApprovalDecision = approval.approved
        ? { approved: true, ...(edited !== undefined && { arguments: JSON.stringify(edited) }) }
        : {
            approved: false,
            reason: typeof approval.reason === 'string' && approval.reason ? approval.reason : 'denied in the chat',
          };
      return [{ call: approval.id, decision }];
    });
    if (decisions.length > 0) return { kind: 'approvals', id: chatId, decisions };
  }
  throw new ChatRequestError(400, 'the newest message must be a user message or carry approval responses');
}
