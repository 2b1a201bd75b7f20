import { z } from 'zod';
import { messageSchema, type Message } from '../../core/messages';
import type { Usage } from '../../core/usage';
import type { DecodedRun } from './decode-history';

/** A recorded conversation, across every run of its chain, with what each model reply cost. */
export interface RecordedConversation {
  workflowId: string;
  /** The chain's latest run. */
  runId: string;
  messages: Message[];
  /** Each model reply (summaries left out): where it sits in `messages`, and its usage. */
  replies: Array<{ at: number; usage?: Usage }>;
  /** The tools the latest run was given by name (its input's `tools`), when it named them. */
  tools?: string[];
}

// What is read of the run's input and of its model calls: checked, since a history file may hold anything.
const messagesSchema = z.array(messageSchema);
const runInputSchema = z.object({
  prompt: z.string().optional(),
  messages: messagesSchema.optional(),
  tools: z.array(z.string()).optional(),
  carried: z.object({ messages: messagesSchema }).loose().optional(),
});
const modelCallSchema = z.object({
  input: z.object({
    transcript: z.object({ base: z.string().optional(), baseLength: z.number().int().min(0), messages: messagesSchema }),
    summarizeUpTo: z.number().optional(),
  }),
  result: z.object({
    message: messageSchema.refine((message) => message.role === 'assistant', 'a model reply is an assistant message'),
    usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }).loose().optional(),
  }),
});

/**
 * The conversation a chain of runs (oldest first) had, rebuilt from what its model calls were sent: each call carries
 * the messages added since the transcript it names (or the whole conversation, without one: workflows/model-call.ts),
 * so the conversation at each call is what the calls before it knew, cut to the call's base, plus what it brings; its
 * reply follows. A run continued as new starts from the conversation it carried. Messages the run added after its last
 * model call (none, when its last turn was answered) are not in any call, and not here.
 */
export function recordedConversation(runs: DecodedRun[]): RecordedConversation {
  const last = runs.at(-1);
  if (!last) throw new Error('no run to read a conversation from');
  const where = `run ${last.workflowId}`;
  let messages: Message[] = [];
  const replies: RecordedConversation['replies'] = [];
  let tools: string[] | undefined;
  for (const run of runs) {
    const input = runInputSchema.safeParse(run.input);
    if (!input.success) throw new Error(`${where}: its input is not an agent run's (${describe(input.error)})`);
    const { prompt, carried } = input.data;
    tools = input.data.tools;
    messages = carried?.messages ?? [
      ...(input.data.messages ?? []),
      ...(prompt ? [{ role: 'user' as const, content: prompt }] : []),
    ];
    // Replies counted in an earlier run are in the carried conversation: only this run's own are added.
    for (const [index, call] of run.modelCalls.entries()) {
      const parsed = modelCallSchema.safeParse(call);
      if (!parsed.success)
        throw new Error(`${where}: model call ${index + 1} of run ${run.runId} is not one (${describe(parsed.error)})`);
      const { transcript, summarizeUpTo } = parsed.data.input;
      const base = transcript.base !== undefined ? transcript.baseLength : 0;
      if (base > messages.length)
        throw new Error(`${where}: a model call names ${base} earlier messages where the history holds ${messages.length}`);
      messages = [...messages.slice(0, base), ...transcript.messages];
      // A reply at or past a recorded one replaces what came after it (a turn rolled back, then answered again).
      while (replies.length > 0 && replies.at(-1)!.at >= messages.length) replies.pop();
      if (summarizeUpTo !== undefined) continue;
      replies.push({ at: messages.length, usage: parsed.data.result.usage as Usage | undefined });
      messages.push(parsed.data.result.message);
    }
  }
  return { workflowId: last.workflowId, runId: last.runId, messages, replies, ...(tools && { tools }) };
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || 'value'}: ${issue.message}`)
    .join('; ');
}
