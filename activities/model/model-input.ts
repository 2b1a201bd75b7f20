import type { ContextView } from '../../core/context-view';
import type { Message, ModelResponse } from '../../core/messages';
import type { ToolChoice } from '../../providers/provider-call';

/**
 * The conversation as the workflow passes it to a model call: a transcript id
 * that stands for the first `baseLength` messages, plus the messages added since.
 * Without a base, `messages` is the whole conversation (the inline fallback).
 */
export interface TranscriptInput {
  base?: string;
  baseLength: number;
  messages: Message[];
}

export interface ModelCallInput {
  /** `provider:model` */
  model: string;
  transcript: TranscriptInput;
  /** Names of the run's tools; their schemas come from the worker's tool registry. */
  tools: string[];
  /** `none`: the model must answer in text (the tools are still defined where a provider needs them). Default `auto`. */
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  view?: ContextView;
  /** When set, the call summarises the messages before this index instead of answering: no tools, nothing stored. */
  summarizeUpTo?: number;
}

export interface ModelTurn extends ModelResponse {
  /** The transcript that now includes this response, when it could be stored. */
  transcript?: { id: string; length: number };
}
