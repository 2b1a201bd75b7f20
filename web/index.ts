/**
 * durable-agent/web: agents in web apps. A chat handler from a Web-standard Request to a Response, speaking the AI SDK
 * UI message stream (useChat) and AG-UI over the run's one event stream (docs/web.md); an A2A 1.0 server over the
 * agents, a task per run (docs/a2a.md).
 */
// First: an app with two copies of a Temporal package fails here with the fix, not in protobufjs (install/).
import '../install/check-one-temporal-copy';
export { createChatHandler, type ChatHandler, type ChatHandlerOptions } from './chat-handler';
export { toNodeListener } from '../serve/http/node-listener';
export { proxyPrincipal, type ProxyPrincipalOptions } from '../serve/http/trusted-proxy';
export { type WebEndpointOptions } from './request-flow';
export { type RequestGuardOptions } from '../serve/http/request-guard';
export { followTurn, type TurnTranslator, type TurnSource, type StartAfter } from './turn-response';
export { ChatSessions, ChatSession, ChatRequestError, type ChatSessionsOptions, type TurnInProgress } from './chat-sessions';
export { UiMessageTranslator, assistantMessageId, type UiMessageChunk, type UiFinishReason } from './ui-message-chunks';
export { toUiMessages, type ConversationUiMessage, type ConversationUiPart } from './ui-messages';
export { createAgUiHandler, type AgUiHandlerOptions, type AgUiSession, type AgUiSessionAccess } from './ag-ui-handler';
export {
  AgUiTranslator,
  agUiCustomNames,
  approvalResponseSchema,
  toolApprovalReason,
  runInterrupted,
  runStarted,
  type AgUiRunIds,
} from './ag-ui-events';
export { agUiRunEvents, agUiEventStreamResponse, type AgUiRunOptions, type AgUiTurnFollow } from './ag-ui-run';
export { readRunAgentInput, AgUiInputError, type AgUiRequest } from './ag-ui-input';
export { createA2AHandler, type A2AHandler, type A2AHandlerOptions } from '../a2a/a2a-handler';
export { proxyHeaderSecurity, type CardSecurity } from '../a2a/agent-card';
