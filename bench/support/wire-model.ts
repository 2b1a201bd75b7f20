import {
  FakeModelServer,
  openaiError,
  openaiReply,
  openaiResponsesReply,
  type FakeStep,
  type ReceivedRequest,
} from '../../test/support/fake-model-server';
import { benchText } from './bench-tools';

/**
 * The scripted model the peer benchmark's two agents really call over HTTP:
 * the project's fake model server, answering OpenAI Chat Completions (our
 * `openai:` provider) and the Responses API (the AI SDK's default OpenAI model).
 * It keeps no state: the model name carries the script (`tool-turns-<N>`), and
 * the number of tool results in the conversation it receives is the turn.
 */
export function toolTurnsModel(turns: number): string {
  return `tool-turns-${turns}`;
}

export async function startWireModel(): Promise<FakeModelServer> {
  const server = await FakeModelServer.start();
  return server.respondWith((request) => {
    // The requests carry whole conversations; keeping them would hold hundreds of MB by the end.
    server.requests.length = 0;
    return answer(request);
  });
}

function answer(request: ReceivedRequest): FakeStep {
  const turns = Number(/^tool-turns-(\d+)$/.exec(String(request.body?.model))?.[1]);
  if (!Number.isInteger(turns)) return openaiError(404, `the benchmark model has no script for "${request.body?.model}"`);
  if (request.path.endsWith('/responses')) {
    const input: Array<{ type?: string }> = request.body.input ?? [];
    const done = input.filter((item) => item.type === 'function_call_output').length;
    return done < turns
      ? openaiResponsesReply({ toolCalls: [nextCall(done + 1)] })
      : openaiResponsesReply({ content: finalAnswer(turns) });
  }
  if (request.path.endsWith('/chat/completions')) {
    const messages: Array<{ role?: string }> = request.body.messages ?? [];
    const done = messages.filter((message) => message.role === 'tool').length;
    return done < turns ? openaiReply({ toolCalls: [nextCall(done + 1)] }) : openaiReply({ content: finalAnswer(turns) });
  }
  return openaiError(404, `the benchmark model does not serve ${request.path}`);
}

function nextCall(turn: number) {
  return { id: `call_${turn}`, name: benchText.name, arguments: { turn } };
}

function finalAnswer(turns: number): string {
  return `done after ${turns} tool turns`;
}
