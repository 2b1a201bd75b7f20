/** The baseline's model: it answers at once (what is measured is history, not the model). */
export const inlineActivities = {
  async inlineModel(messages: unknown[]): Promise<string> {
    return `seen ${messages.length} new message(s)`;
  },
};
export type InlineActivities = typeof inlineActivities;
