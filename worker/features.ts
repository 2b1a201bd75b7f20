import { createAgentRegistry, type AgentRegistry, type Definitions } from '../agents/registry';
import type { WorkspaceRoots } from '../activities/scratch/run-workspace';
import { createGradeOutcome } from '../evals/graders/grade-outcome';
import { evalJudgeAgent } from '../evals/graders/judge-agent';
import { createScratchActivities } from '../evals/scratch/scratch-activities';
import { toolActivity } from '../activities/tool-activity';
import { scheduleBoundsFromEnv } from '../schedules/bounds';
import { createScheduleRunTool, scheduleRunTool, scheduleRunToolName } from '../schedules/schedule-run-tool';
import { timeTools } from '../time/time-tools';
import type { Tool } from '../tools';

/**
 * Where the worker assembles the features that sit above the agent run (docs/architecture.md): nothing under the
 * worker names a feature, so each one's activities and built-in agents are added here, and its workflows in the
 * bundle's entry (./workflows.ts). Today two features: evals (`agent eval`, runEval), and schedules (the
 * `schedule_run` tool, when an agent lists it).
 */

/**
 * The features' tools an agent may name without registering them (`tools: ['sleep', 'wait_for_event']`): the time
 * tools with their default bounds, and schedule_run. Each is registered only when an agent names it.
 */
export const featureToolsByName: Tool[] = [...timeTools, scheduleRunTool as Tool];

/** The registry of a worker (and of the CLI, which checks runs against it): the definitions and the features' tools by name. */
export function createWorkerRegistry(definitions: Definitions = {}): AgentRegistry {
  return createAgentRegistry({ ...definitions, toolsByName: [...featureToolsByName, ...(definitions.toolsByName ?? [])] });
}

/** Adds the features' own agents to the registry: the evals' judge (eval-judge), which an eval's LLM judge runs as. */
export function addFeatureAgents(registry: AgentRegistry): void {
  registry.addEngineAgent(evalJudgeAgent);
}

/** The features' activities, beside the agent run's (activities/index.ts). */
export function createFeatureActivities(registry: AgentRegistry, roots: WorkspaceRoots, env: NodeJS.ProcessEnv = process.env) {
  return {
    // An eval's copies of a workspace for its runs to change (docs/evals-tools.md), on every worker.
    ...createScratchActivities(roots),
    // An eval's built-in and custom graders (evals/graders/grade-outcome.ts): custom graders are the user's code.
    gradeOutcome: createGradeOutcome(registry),
    // schedule_run, when an agent lists it: run with this worker's agents, so a schedule of an unknown one is refused.
    ...(registry.tools.get(scheduleRunToolName) === scheduleRunTool && {
      [scheduleRunToolName]: toolActivity(
        createScheduleRunTool({
          knowsAgent: (name) => registry.agents.has(name),
          agentMaxSchedules: (name) => registry.agents.get(name)?.time?.maxSchedules,
          bounds: scheduleBoundsFromEnv(env),
        }),
        roots,
      ),
    }),
  };
}
