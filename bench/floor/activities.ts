/**
 * The floor's activities: a model-like step and a tool-like step that do
 * nothing, so all that is left of a loop iteration is Temporal's own cost.
 */
export const floorActivities = {
  async modelStep(iteration: number): Promise<{ iteration: number; toolCall: string }> {
    return { iteration, toolCall: 'echo' };
  },
  async toolStep(_iteration: number): Promise<string> {
    return 'ok';
  },
};

export type FloorActivities = typeof floorActivities;
