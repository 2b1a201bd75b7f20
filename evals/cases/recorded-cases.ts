import { maxPromptChars } from '../../core/limits';
import type { Message } from '../../core/messages';
import { addUsage, zeroUsage, type Usage } from '../../core/usage';
import { emptyReplyPrompt, invalidOutputPrompt, reflectionPrompt } from '../../workflows/turn';
import type { EvalCase, RecordedAnswer } from '../../core/eval-types';
import type { RecordedConversation } from './recorded-conversation';
import { safeContext } from './safe-context';
import { observedCalls, toolFixtures } from './tool-fixtures';

export interface RecordedCaseOptions {
  /** One case for every user message of the conversation, not only its last (a session's every turn). */
  everyMessage?: boolean;
}

// The user messages a turn adds itself (workflows/turn.ts): asking again, never a person's message.
const invalidOutputLead = invalidOutputPrompt('\u0000').split('\u0000')[0];
const isPromptOfTheLoop = (content: string) =>
  content === reflectionPrompt || content === emptyReplyPrompt || content.startsWith(invalidOutputLead);

/** The positions of the user messages that began a turn: a person's, not the loop's own, and not blank. */
export function turnStarts(messages: Message[]): number[] {
  return messages.flatMap((message, index) =>
    message.role === 'user' && message.content.trim() && !isPromptOfTheLoop(message.content) ? [index] : [],
  );
}

/**
 * The cases of one recorded conversation: its last user message, or every one (`everyMessage`). A case re-answers
 * the message with the conversation before it as context (made safe: ./safe-context.ts); `recorded` is the
 * recording's answer to it (its last reply's text, its tool calls with their results, the usage and iterations of
 * its model calls), and `toolFixtures` the results of the calls it and the conversation before made
 * (./tool-fixtures.ts). A case's id is `<workflowId>#<n>`, n the message's number as `agent show` prints it.
 */
export function casesFromConversation(recording: RecordedConversation, options: RecordedCaseOptions = {}): EvalCase[] {
  const { messages } = recording;
  const starts = turnStarts(messages);
  const chosen = options.everyMessage ? starts : starts.slice(-1);
  return chosen.map((start) => {
    const end = starts.find((next) => next > start) ?? messages.length;
    const prompt = messages[start].content;
    const messageIndex = start + 1;
    if (prompt.length > maxPromptChars)
      throw new Error(
        `run ${recording.workflowId}, message ${messageIndex}: ${prompt.length} characters, more than a run accepts (${maxPromptChars})`,
      );
    const answer = messages.slice(start + 1, end);
    const recorded = recordedAnswer(
      answer,
      recording.replies.filter((reply) => reply.at > start && reply.at < end),
    );
    return {
      id: `${recording.workflowId}#${messageIndex}`,
      source: { kind: 'run', workflowId: recording.workflowId, runId: recording.runId, messageIndex },
      context: safeContext(messages.slice(0, start)),
      prompt,
      ...(recorded && { recorded }),
      toolFixtures: toolFixtures(answer, messages.slice(0, start)),
      ...(recording.tools && { tools: recording.tools }),
    };
  });
}

function recordedAnswer(answer: Message[], replies: RecordedConversation['replies']): RecordedAnswer | undefined {
  const last = answer.filter((message) => message.role === 'assistant').at(-1);
  if (!last) return undefined;
  // No reply of this turn in the histories read (a file of a later run only): its usage and iterations are unknown.
  if (replies.length === 0) return { answer: last.content, toolCalls: observedCalls(answer) };
  const usages = replies.map((reply) => reply.usage);
  const usage = usages.every((known): known is Usage => known !== undefined) ? usages.reduce(addUsage, zeroUsage) : undefined;
  return { answer: last.content, toolCalls: observedCalls(answer), ...(usage && { usage }), iterations: replies.length };
}
