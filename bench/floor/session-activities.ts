/**
 * The floor session's model call: one Chat Completions request to the same
 * model server the agent's worker calls, with plain fetch (no provider client,
 * no transcript store, no heartbeats), so the floor waits the model's 1 s too.
 */
export function floorSessionActivities(modelBaseUrl: string) {
  return {
    async callModel(text: string): Promise<string> {
      const response = await fetch(`${modelBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-bench' },
        body: JSON.stringify({ model: 'sessions-1s', messages: [{ role: 'user', content: text }] }),
      });
      if (!response.ok) throw new Error(`the model answered ${response.status}: ${await response.text()}`);
      const completion = (await response.json()) as { choices: { message: { content: string | null } }[] };
      return completion.choices[0]?.message.content ?? '';
    },
  };
}

export type FloorSessionActivities = ReturnType<typeof floorSessionActivities>;
