/**
 * durable-agent/testing: a kit for testing your own agents: a scripted model provider, helpers to run an agent in
 * Temporal's test environment or against a server, and replay tests of your recorded histories (docs/testing.md).
 */
// First: an app with two copies of a Temporal package, or of protobufjs under them, fails here with the fix (install/).
import '../install/check-one-temporal-copy';
import '../install/check-one-protobufjs';
export {
  scriptedModel,
  ScriptedModel,
  scriptedModelId,
  type Script,
  type ScriptStep,
  type ScriptedRequest,
} from './scripted-model';
export { failure, ScriptedFailure, type ReplySpec, type ScriptedReply } from './scripted-reply';
export {
  createAgentTestEnv,
  type AgentTestEnv,
  type AgentTestEnvOptions,
  type TestInput,
  type TestEvalOptions,
} from './agent-test-env';
export { runEval } from './run-eval';
export type { AgentRun, AgentSession } from './agent-run';
export type { TestServer } from './test-environment';
export {
  replayAgentHistories,
  expectHistoriesToReplay,
  HistoryReplayError,
  type HistoryReplayOptions,
  type HistorySource,
} from './replay';
