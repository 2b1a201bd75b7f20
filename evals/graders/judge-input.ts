import type { AgentInput } from '../../core/resolve-input';
import type { Message } from '../../core/messages';
import type { CaseOutcome, EvalCase, GraderSpec } from '../../core/eval-types';
import { evalJudgeAgentName } from './judge-agent-name';

type JudgeSpec = Extract<GraderSpec, { type: 'judge' }>;

/** How much of each part the judge reads: enough to grade, and a prompt far under maxPromptChars (256 KB). */
export const judgePromptLimits = {
  questionChars: 16_000,
  contextMessages: 6,
  contextMessageChars: 1_000,
  answerChars: 48_000,
  toolCalls: 20,
  toolCallChars: 1_500,
};

/**
 * The input of the child run that judges one outcome: the eval-judge agent on the spec's model, with no tools, and a
 * prompt holding the rubric, the question, the gist of the context before it, the answer and the tool calls.
 *
 * Everything but the rubric is the eval's material, and the answer is a model's output, untrusted: each part is a JSON
 * string with `<` and `>` escaped, inside its own tag, so no text in it can close its tag or open another (an answer
 * cannot forge a `</answer><rubric>`); and the verdict is read only from the judge's structured output
 * (readJudgeVerdict), never from text. The workspace is the caller's: the judge has no tools, but every run names one.
 * Pure, so the eval's workflow may build it.
 */
export function judgeRunInput(spec: JudgeSpec, evalCase: EvalCase, outcome: CaseOutcome, workspace: string): AgentInput {
  const prompt = [
    `<rubric>\n${spec.rubric.trim()}\n</rubric>`,
    `<question>\n${quote(cut(evalCase.prompt, judgePromptLimits.questionChars))}\n</question>`,
    ...(evalCase.context.length > 0 ? [`<context>\n${quote(contextGist(evalCase.context))}\n</context>`] : []),
    `<answer>\n${quote(cut(outcome.answer, judgePromptLimits.answerChars))}\n</answer>`,
    `<tool_calls>\n${quote(toolCallsGist(outcome))}\n</tool_calls>`,
    'Grade the answer against the rubric. Reply with the verdict only.',
  ].join('\n\n');
  return { agent: evalJudgeAgentName, model: spec.model, tools: [], prompt, workspace };
}

/** A JSON string that cannot close or open a tag: `<` and `>` escaped as JSON allows. */
export function quote(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');
}

function contextGist(context: Message[]): string {
  const shown = context.filter((message) => message.role !== 'system').slice(-judgePromptLimits.contextMessages);
  const left = context.filter((message) => message.role !== 'system').length - shown.length;
  const lines = shown.map((message) => {
    const limit = judgePromptLimits.contextMessageChars;
    switch (message.role) {
      case 'user':
        return `user: ${cut(message.content, limit)}`;
      case 'assistant': {
        const calls = message.toolCalls.map((call) => call.name).join(', ');
        return `assistant: ${cut(message.content, limit)}${calls ? ` [called ${calls}]` : ''}`;
      }
      case 'tool':
        return `${message.isError ? 'tool error' : 'tool result'} (${message.toolName}): ${cut(message.content, limit)}`;
      default:
        return '';
    }
  });
  return [...(left > 0 ? [`[${left} earlier messages left out]`] : []), ...lines].join('\n');
}

function toolCallsGist(outcome: CaseOutcome): string {
  if (outcome.toolCalls.length === 0) return 'none';
  const shown = outcome.toolCalls.slice(0, judgePromptLimits.toolCalls).map((call, index) => {
    const result = call.result === undefined ? '' : ` → ${call.isError ? 'error: ' : ''}${call.result}`;
    return `${index + 1}. ${call.name} ${JSON.stringify(call.arguments) ?? ''}${result}`;
  });
  const more = outcome.toolCalls.length - shown.length;
  return [
    ...shown.map((line) => cut(line, judgePromptLimits.toolCallChars)),
    ...(more > 0 ? [`[${more} more calls left out]`] : []),
  ].join('\n');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)} […${text.length - max} characters cut]` : text;
}
