import type { AgentSpec } from '../../core/agent-spec';
import type { GuardrailStage, TrippedGuardrail } from '../../core/guardrails';
import { canonicalJson } from '../../core/approval-description';
import type { ToolCall } from '../../core/messages';
import type { ResolvedAgentInput } from '../../core/input';
import type { ModelCallResult } from '../../activities';
import type { RunStatus } from '../run-status';
import { guardrailsOf, runGuardrails, type GuardrailRequest, type GuardrailTiming } from './run-guardrails';

/** A text a turn's guardrails check: the message (or steering message), or an answer with its parsed output. */
export type GuardedText = Pick<GuardrailRequest, 'text' | 'steering' | 'output'>;

/**
 * What a turn (workflows/turn.ts) asks of its agent's guardrails: whether it has some for a stage, their verdict on
 * texts (what they spend counted for the turn), and whether a reply must wait for them before anyone sees it. An
 * agent without guardrails costs no promise: every check is skipped on `has`.
 */
export class TurnGuardrails {
  private readonly callChecks = new Map<string, number>();

  constructor(
    private readonly input: ResolvedAgentInput,
    private readonly status: RunStatus,
    /** The run's cost budget, if it has one: a model guardrail's child run spends from what is left. */
    private readonly budget: number | undefined,
  ) {}

  has(agent: AgentSpec | undefined, stage: GuardrailStage, timing?: GuardrailTiming): boolean {
    return guardrailsOf(agent?.guardrails, stage, timing).length > 0;
  }

  /** Runs a stage's guardrails on each text, all at once; the first that tripped (in the agent's order), if one did. */
  async check(
    agent: AgentSpec,
    stage: GuardrailStage,
    texts: GuardedText[],
    iteration: number,
    timing?: GuardrailTiming,
  ): Promise<TrippedGuardrail | undefined> {
    const { input, status, budget } = this;
    const guardrails = guardrailsOf(agent.guardrails, stage, timing);
    const at = `t${status.turnNumber}.i${iteration}.${stage}`;
    const outcomes = await Promise.all(
      texts.map((text, index) =>
        runGuardrails(input, guardrails, {
          ...text,
          checks: stage,
          agent: agent.name,
          at: texts.length > 1 ? `${at}${index}` : at,
          ...(budget !== undefined && { dollarsLeft: budget - (status.usage.costUsd ?? 0) }),
        }),
      ),
    );
    for (const outcome of outcomes) status.spent(outcome.usage);
    return outcomes.find((outcome) => outcome.tripped)?.tripped;
  }

  /**
   * Runs the agent's tool-call guardrails on one call, with the arguments that would run, all at once: the first that
   * tripped (in the agent's order), if one did, and whether it ends the turn (its `onTrip`) or refuses only the call.
   * A model guardrail reads the call as its task: the tool's name, then its arguments as canonical JSON.
   */
  async checkCall(
    agent: AgentSpec,
    call: ToolCall,
    parsed: unknown,
    iteration: number,
  ): Promise<{ tripped: TrippedGuardrail; endsTurn: boolean } | undefined> {
    const { input, status, budget } = this;
    const guardrails = guardrailsOf(agent.guardrails, 'tool_call');
    // A call is checked again after a person edits it: each check's model guardrail runs have ids of their own.
    const checks = (this.callChecks.get(call.id) ?? 0) + 1;
    this.callChecks.set(call.id, checks);
    const outcome = await runGuardrails(input, guardrails, {
      checks: 'tool_call',
      text: `${call.name} ${canonicalJson(parsed)}`,
      toolCall: { name: call.name, arguments: parsed },
      agent: agent.name,
      at: `t${status.turnNumber}.i${iteration}.tool_call.${call.id}${checks > 1 ? `.${checks}` : ''}`,
      ...(budget !== undefined && { dollarsLeft: budget - (status.usage.costUsd ?? 0) }),
    });
    status.spent(outcome.usage);
    if (!outcome.tripped) return undefined;
    const spec = guardrails.find((guardrail) => guardrail.name === outcome.tripped!.name);
    return { tripped: outcome.tripped, endsTurn: spec?.onTrip === 'end_turn' };
  }

  /**
   * Waits for the input guardrails that ran beside a model call, and for the call: when one tripped, the reply is
   * dropped unseen (its text was held: the turn streamed none), what it cost counted. A call that failed while a
   * guardrail tripped ends the turn as tripped; one that failed otherwise fails the turn as it would have.
   */
  async besideModel(
    check: Promise<TrippedGuardrail | undefined>,
    reply: Promise<ModelCallResult>,
  ): Promise<TrippedGuardrail | undefined> {
    const [tripped, response] = await Promise.all([
      check,
      reply.then(
        (answered) => answered,
        () => undefined,
      ),
    ]);
    if (tripped && response) this.status.spent(response.usage);
    return tripped;
  }

  /**
   * Whether a reply waits for the output guardrails of the agent that made it: any reply without tool calls may be
   * the answer a person sees. The text beside tool calls is narration mid-turn, not an answer, and is not held.
   */
  holds(agent: AgentSpec | undefined, response: ModelCallResult): boolean {
    return response.message.toolCalls.length === 0 && response.message.content.trim() !== '' && this.has(agent, 'output');
  }
}
