import { candidateAgentInput } from '../../evals/run-eval';
import { graderSpecProblems } from '../../evals/graders/check-grader-specs';
import type { Candidate, EvalCase, GraderSpec } from '../../core/eval-types';
import { InvalidInputError } from '../../client/start-agent';
import { assertStartable } from '../check-run';
import { cliRegistry } from '../registry';

/**
 * The graders of the eval and of every case, with the custom ones checked against the graders the CLI's registry has
 * (AGENT_DEFINITIONS, as its worker's): a name no worker knows would grade every pair 0, so it is refused (exit 2).
 */
export function assertGradersKnown(graders: GraderSpec[], cases: EvalCase[] = []): void {
  const known = { customGraders: [...cliRegistry().graders.keys()] };
  const problems = [
    ...graderSpecProblems(graders, 'graders', known),
    ...cases.flatMap((evalCase) =>
      evalCase.graders ? graderSpecProblems(evalCase.graders, `case ${evalCase.id} graders`, known) : [],
    ),
  ];
  if (problems.length > 0)
    throw new InvalidInputError(
      `invalid eval: ${problems.join('; ')} (the CLI checks graders against its own AGENT_DEFINITIONS: give it those of your workers)`,
    );
}

/**
 * What each candidate that names no tools is offered, case by case: the recording's tools (checked like a run's: an
 * unknown one is exit 2); none, for a candidate of no agent on a case whose run named none, which is refused when that
 * recording called tools (every call would get "unknown tool", and the eval score it): say which tools, or `tools=`.
 */
export async function assertCandidateTools(candidates: Candidate[], cases: EvalCase[], workspace: string): Promise<void> {
  for (const candidate of candidates.filter((entry) => entry.tools === undefined)) {
    const checked = new Set<string>();
    for (const evalCase of cases) {
      if (evalCase.tools !== undefined) {
        const key = JSON.stringify(evalCase.tools);
        if (checked.has(key)) continue;
        checked.add(key);
        await assertStartable({ ...candidateAgentInput(candidate, workspace), tools: evalCase.tools }).catch((error: Error) => {
          throw Object.assign(error, {
            message: `candidate "${candidate.name}", offered the tools case ${evalCase.id} was recorded with: ${error.message}`,
          });
        });
        continue;
      }
      const called = [...new Set((evalCase.recorded?.toolCalls ?? []).map((call) => call.name))];
      if (candidate.agent === undefined && called.length > 0)
        throw new InvalidInputError(
          `candidate "${candidate.name}" names no agent and no tools, so it would be offered none, but the recording of ` +
            `case ${evalCase.id} called ${called.join(', ')}: give it tools=${called.join(',')} (or tools= to offer none)`,
        );
    }
  }
}
