import type { ModelSettings } from './agent-spec';

/**
 * How a run's model settings travel: as one `modelSettings` object (the ModelSettings type of core/agent-spec.ts)
 * from the CLI's flags or startAgent's input, through the run's input and prepareRun, into the agent's spec, the
 * model activity's input and the provider's request. They are merged with the agent's own settings once, in prepareRun.
 * Free of zod: the workflow's input check (core/input-check.ts) uses it too.
 */

/**
 * The settings a run's input, and prepareRun's overrides, carried one by one before they travelled as one object.
 * Callers may still give them so (the older shape); runs started then, and the prepareRun activities they
 * scheduled, still hold them. A new setting goes into ModelSettings only, never here.
 */
export const olderSettingNames = ['maxOutputTokens', 'thinkingBudget', 'reasoningEffort'] as const;
type OlderSettingName = (typeof olderSettingNames)[number];
export type OlderSettings = Partial<Pick<ModelSettings, OlderSettingName>>;

/** Anything that may carry settings in either shape: a run's input, prepareRun's overrides. */
export type CarriesSettings = OlderSettings & { modelSettings?: ModelSettings };

/** The settings given both in the older shape and in modelSettings, with two different values: each a problem, by the older name. */
export function settingsGivenTwice(carrier: CarriesSettings): Array<{ name: OlderSettingName; message: string }> {
  return olderSettingNames
    .filter(
      (name) =>
        carrier[name] !== undefined &&
        carrier.modelSettings?.[name] !== undefined &&
        carrier[name] !== carrier.modelSettings[name],
    )
    .map((name) => ({
      name,
      message: `${name} is given twice, with two values: give it once, in modelSettings (${name} beside it is the older shape)`,
    }));
}

/**
 * The carrier with its older settings moved into `modelSettings` (where a value given in both wins, though the
 * checks refuse two different values), and `modelSettings` left out when it would be empty: a run that sets
 * nothing has the input it always had.
 */
export function withSettingsFolded<T extends CarriesSettings>(carrier: T): Omit<T, OlderSettingName> {
  const folded: Record<string, unknown> = { ...carrier };
  const settings: Record<string, unknown> = {};
  for (const name of olderSettingNames) {
    if (folded[name] !== undefined) settings[name] = folded[name];
    delete folded[name];
  }
  Object.assign(settings, carrier.modelSettings);
  for (const [name, value] of Object.entries(settings)) if (value === undefined) delete settings[name];
  if (Object.keys(settings).length > 0) folded.modelSettings = settings;
  else delete folded.modelSettings;
  return folded as Omit<T, OlderSettingName>;
}

/** The one merge of an agent's own settings with the run's: the run's win, setting by setting. */
export function mergeModelSettings(agent: ModelSettings, run: ModelSettings | undefined): ModelSettings {
  const merged: ModelSettings = { ...agent };
  for (const [name, value] of Object.entries(run ?? {}) as Array<[keyof ModelSettings, unknown]>) {
    if (value !== undefined) (merged as Record<string, unknown>)[name] = value;
  }
  return merged;
}
