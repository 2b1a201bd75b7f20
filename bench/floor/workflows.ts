import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

/** How the tool-like step runs: as a regular activity (like our tools) or a local activity. */
export type FloorToolKind = 'activity' | 'local';

const activities = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const localActivities = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/**
 * Temporal's floor for the agent loop: per iteration one model-like activity,
 * then one tool-like activity, in sequence, with nothing else in the workflow.
 */
export async function floorLoop(iterations: number, toolKind: FloorToolKind): Promise<number> {
  const runTool = toolKind === 'local' ? localActivities.toolStep : activities.toolStep;
  for (let iteration = 1; iteration <= iterations; iteration++) {
    await activities.modelStep(iteration);
    await runTool(iteration);
  }
  return iterations;
}
