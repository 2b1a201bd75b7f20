import { builtInTools, type Tool } from '../tools';
import { createModelActivities } from './model/call-model';
import { createPrepareRun } from './prepare-run';
import { toolActivity } from './tool-activity';
import type { TranscriptStore } from './transcript/transcript-store';

export type { ModelCallInput, ModelTurn, TranscriptInput } from './model/model-input';
export type { PrepareRunInput, RunSetup } from './prepare-run';
export type { ToolActivityInput } from './tool-activity';

/**
 * Every activity a worker registers: the model call, the run setup check, and
 * one activity per tool, named after the tool so each is visible in the Web UI.
 */
export function createActivities(tools: Tool[] = builtInTools, env: NodeJS.ProcessEnv = process.env, transcripts?: TranscriptStore) {
  const toolActivities = Object.fromEntries(tools.map((tool) => [tool.name, toolActivity(tool)]));
  return {
    ...toolActivities,
    ...createModelActivities(tools, env, transcripts),
    prepareRun: createPrepareRun(tools),
  };
}

/** The activities the workflow calls by fixed name; tools are called by their dynamic names. */
export type CoreActivities = ReturnType<typeof createModelActivities> & { prepareRun: ReturnType<typeof createPrepareRun> };
