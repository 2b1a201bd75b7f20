import type { ModelSettings } from '../../core/agent-spec';
import { anthropicPromptCacheTtlProblem } from './cache-breakpoints';

/**
 * What Anthropic refuses in a request's settings, in words: any temperature but 1 while thinking is on, and a
 * prompt cache kept longer than it offers (an hour). The provider
 * offers it as its modelSettingsProblem (so such an agent or run fails at start, before any model call), and its
 * prepare step holds every request to it.
 */
export function anthropicSettingsProblem(settings: ModelSettings): string | undefined {
  if (settings.thinkingBudget !== undefined && settings.temperature !== undefined && settings.temperature !== 1) {
    return 'modelSettings.temperature cannot be set (other than 1) together with thinkingBudget: Anthropic allows no other temperature while thinking';
  }
  if (settings.promptCache === '24h') return anthropicPromptCacheTtlProblem;
  return undefined;
}
