import http from 'node:http';
import { AgentCard, formatSSEEvent, Role, SSE_HEADERS, TaskState, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
} from '@a2a-js/sdk/server';

/** What the remote agent does with a message: the words of its answer, once `gate` (if any) lets it go. */
export interface RemoteScript {
  answer: string;
  gate?: Promise<void>;
  /** Ask this first (the task `input-required`), and answer only the message that follows on the same task. */
  ask?: string;
  /** End the task `failed`, saying this. */
  fail?: string;
}

/**
 * A remote A2A agent made of @a2a-js/sdk's own server parts (its DefaultRequestHandler, in-memory task store and
 * JsonRpcTransportHandler) on node:http: the remote our remoteA2AAgent tool calls. Its executor publishes the task,
 * `working`, then (after the gate) the answer's artifact and `completed`; `executions` counts the messages it took.
 * A script may make it ask first (`input-required`, answered by a message on the same task) or fail.
 */
export async function startRemoteA2AAgent(script: (text: string) => RemoteScript): Promise<{
  cardUrl: string;
  executions: string[];
  /** The JSON-RPC methods called, in order. */
  methods: string[];
  /** The tasks named by the messages that went on with one (a reply to its question), in order. */
  taskIds: string[];
  headersSeen: string[];
  close(): Promise<void>;
}> {
  const executions: string[] = [];
  const headersSeen: string[] = [];
  const methods: string[] = [];
  const taskIds: string[] = [];
  // The context of each task, for the canceled status a cancel publishes.
  const canceled = new Map<string, string>();
  const text = (value: string): Part => ({
    content: { $case: 'text', value },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  });
  const executor: AgentExecutor = {
    async execute(context, bus) {
      executions.push(context.userMessage.messageId);
      if (context.userMessage.taskId) taskIds.push(context.userMessage.taskId);
      const spoken = context.userMessage.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');
      // The task's first message decides the script, for its follow-ups too.
      const first = context.task?.history[0] ?? context.userMessage;
      const {
        answer: words,
        gate,
        ask,
        fail,
      } = script(first.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''));
      const ids = { taskId: context.taskId, contextId: context.contextId };
      canceled.set(ids.taskId, ids.contextId);
      const said = (value: string) => ({
        messageId: `${context.taskId}-said`,
        contextId: ids.contextId,
        taskId: ids.taskId,
        role: Role.ROLE_AGENT,
        parts: [text(value)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      });
      const status = (state: TaskState, message?: string) => ({
        state,
        message: message === undefined ? undefined : said(message),
        timestamp: new Date().toISOString(),
      });
      // A follow-up on a task that asked: the person's reply, which the answer quotes.
      const reply = context.task ? spoken : undefined;
      bus.publish(
        AgentEvent.task({
          ...(context.task ?? { artifacts: [], history: [context.userMessage], metadata: undefined }),
          id: ids.taskId,
          contextId: ids.contextId,
          status: status(context.task ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED),
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ ...ids, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      await gate;
      if (fail !== undefined || (ask !== undefined && reply === undefined)) {
        const state = fail !== undefined ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_INPUT_REQUIRED;
        bus.publish(AgentEvent.statusUpdate({ ...ids, status: status(state, fail ?? ask), metadata: undefined }));
        bus.finished();
        return;
      }
      const answer = reply === undefined ? words : `${words} (you said: ${reply})`;
      bus.publish(
        AgentEvent.artifactUpdate({
          ...ids,
          artifact: {
            artifactId: 'a1',
            name: 'answer',
            description: '',
            parts: [text(answer)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      bus.publish(AgentEvent.statusUpdate({ ...ids, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      bus.finished();
    },
    // As the SDK asks of an executor: the task ends `canceled`, on the bus it gives.
    cancelTask: (taskId, bus) => {
      const contextId = canceled.get(taskId) ?? '';
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
      bus.finished();
      return Promise.resolve();
    },
  };
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const card: AgentCard = AgentCard.fromJSON({
    name: 'remote-helper',
    description: 'Answers questions.',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });
  const transport = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor));
  server.on('request', (request, response) => {
    headersSeen.push(String(request.headers['x-remote-key'] ?? ''));
    if (request.method === 'GET') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(AgentCard.toJSON(card)));
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      void (async () => {
        methods.push(String((JSON.parse(body) as { method?: string }).method));
        const context = new ServerCallContext({ requestedVersion: String(request.headers['a2a-version'] ?? '0.3') });
        const answer = await transport.handle(body, context);
        if (Symbol.asyncIterator in answer) {
          // The first answer before the headers: a refusal is a plain JSON-RPC error, as the SDK's express adapter sends.
          const events = answer[Symbol.asyncIterator]();
          let first: IteratorResult<unknown>;
          try {
            first = await events.next();
          } catch (error) {
            response.setHeader('content-type', 'application/json');
            response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: JsonRpcTransportHandler.mapToJSONRPCError(error) }));
            return;
          }
          response.writeHead(200, SSE_HEADERS);
          if (!first.done) response.write(formatSSEEvent(first.value));
          for (let next = await events.next(); !next.done; next = await events.next()) response.write(formatSSEEvent(next.value));
          response.end();
        } else {
          response.setHeader('content-type', 'application/json');
          response.end(JSON.stringify(answer));
        }
      })().catch((error: Error) => response.destroy(error));
    });
  });
  return {
    cardUrl: `${origin}/.well-known/agent-card.json`,
    executions,
    methods,
    taskIds,
    headersSeen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
