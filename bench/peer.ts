import { startOurWorker, runOurs } from './peer/our-agent';
import { runPeer, startPeerWorker } from './peer/peer-worker';
import { benchText, textChunkChars } from './support/bench-tools';
import type { Benchmark } from './support/benchmark';
import type { FinishedRun } from './support/finished-run';
import { formatBytes, formatCount, formatMs, markdownTable, type TargetRow } from './support/format';
import { bytesByActivityType, eventBytes, modelActivityType, scheduledActivities } from './support/history';
import { log } from './support/log';
import { replayRuns, type ReplayOutcome } from './support/replay-runs';
import { startWireModel, toolTurnsModel } from './support/wire-model';

const maxRunBytes = 4 * 1024 * 1024;
/** The turn count the side-by-side claim is made at (issue 13). */
const claimTurns = 150;

type AgentName = 'ours' | 'peer';

interface Measured {
  agent: AgentName;
  toolTurns: number;
  run: FinishedRun<unknown>;
  toolTurnsDone: number;
  events: number;
  bytes: number;
  largestRunBytes: number;
  largestEventBytes: number;
  modelCallBytes: number;
  replay: ReplayOutcome;
}

const agentLabels: Record<AgentName, string> = {
  ours: 'ours (durable-agent)',
  peer: 'peer (@temporalio/ai-sdk)',
};

/** The activity types of each agent's model call and tool. */
const activityTypes: Record<AgentName, { model: string; tool: string }> = {
  ours: { model: modelActivityType, tool: benchText.name },
  peer: { model: 'invokeModel', tool: 'benchText' },
};

/**
 * Our agent and a peer built the way @temporalio/ai-sdk's documentation builds
 * one, side by side: the same dev server, the same scripted model over HTTP
 * (really called by both: our openai provider on Chat Completions, the AI SDK's
 * default OpenAI model on the Responses API), the same task of N tool turns that
 * each return 2 KB of text. A run the server terminates is a result.
 */
export const peer: Benchmark = {
  name: 'peer',
  title: 'Side by side with an agent built on @temporalio/ai-sdk',
  async run({ environment, quick }) {
    const sizes = quick ? [10, 50] : [50, claimTurns, 300];
    const model = await startWireModel();
    try {
      const baseUrl = `${model.url}/v1`;
      const [ours, peerTarget] = await Promise.all([startOurWorker(environment, baseUrl), startPeerWorker(environment, baseUrl)]);
      const measured: Measured[] = [];
      for (const toolTurns of sizes) {
        // The peer's runs grow quadratically: bounded by the server's 50 MB limit, and by this deadline.
        const deadlineMs = 60_000 + 1_500 * toolTurns;
        log(`peer: ${toolTurns} tool turns, ours...`);
        const ourRun = await runOurs(environment, ours, { model: toolTurnsModel(toolTurns), toolTurns, deadlineMs });
        measured.push(await measure('ours', toolTurns, ourRun, environment.bundleCode));
        log(`peer: ${toolTurns} tool turns, the peer...`);
        const peerRun = await runPeer(peerTarget, { model: toolTurnsModel(toolTurns), toolTurns, deadlineMs });
        measured.push(await measure('peer', toolTurns, peerRun, peerTarget.bundleCode));
      }
      return report(measured, sizes);
    } finally {
      await model.close();
    }
  },
};

async function measure(agent: AgentName, toolTurns: number, run: FinishedRun<unknown>, bundleCode: string): Promise<Measured> {
  const events = run.runs.flatMap((history) => history.events);
  log(`  replaying ${agent}'s ${formatCount(events.length)} events...`);
  const replay = await replayRuns(bundleCode, run.workflowId, run.runs);
  if (replay.errors.length) log(`  ${agent}'s replay failed: ${replay.errors.join('; ')}`);
  return {
    agent,
    toolTurns,
    run,
    toolTurnsDone: run.runs.flatMap(scheduledActivities).filter((activity) => activity.activityType === activityTypes[agent].tool)
      .length,
    events: events.length,
    bytes: run.runs.reduce((total, history) => total + history.bytes, 0),
    largestRunBytes: Math.max(...run.runs.map((history) => history.bytes)),
    largestEventBytes: Math.max(...events.map(eventBytes)),
    modelCallBytes: bytesByActivityType(run.runs).get(activityTypes[agent].model) ?? 0,
    replay,
  };
}

function report(measured: Measured[], sizes: number[]) {
  const rows = measured.map((result) => [
    agentLabels[result.agent],
    formatCount(result.toolTurns),
    result.run.outcome,
    formatCount(result.toolTurnsDone),
    formatCount(result.events),
    formatBytes(result.bytes),
    `${Math.round((result.modelCallBytes / Math.max(1, result.bytes)) * 100)}%`,
    formatBytes(result.largestEventBytes),
    formatMs(result.run.wallMs / Math.max(1, result.toolTurnsDone)),
    result.replay.errors.length
      ? `failed after ${formatMs(result.replay.ms)}: ${result.replay.errors.join('; ')}`
      : formatMs(result.replay.ms),
  ]);
  const ours = measured.filter((result) => result.agent === 'ours');
  const at = (agent: AgentName, turns: number) => measured.find((result) => result.agent === agent && result.toolTurns === turns);
  const claimAt = sizes.includes(claimTurns) ? claimTurns : sizes.at(-1)!;
  const ourClaim = at('ours', claimAt);
  const peerClaim = at('peer', claimAt);
  const targets: TargetRow[] = [
    {
      measure: `our agent, ${sizes.map(formatCount).join(', ')} tool turns of 2 KB each`,
      result: ours
        .map(
          (result) =>
            `${formatCount(result.toolTurns)}: ${result.run.outcome}, ${formatBytes(result.bytes)}` +
            (result.replay.errors.length ? ', replay failed' : ', replays'),
        )
        .join('; '),
      target: "completes and replays at every size; no run's history over 4 MB",
      pass: ours.every(
        (result) => result.run.completed && result.replay.errors.length === 0 && result.largestRunBytes <= maxRunBytes,
      ),
    },
    {
      measure: `history side by side at ${formatCount(claimAt)} tool turns`,
      result: ourClaim && peerClaim ? `ours ${summary(ourClaim)}; peer ${summary(peerClaim)}` : 'not measured',
      target: "ours completes with less history than the peer's",
      pass: Boolean(ourClaim?.run.completed && peerClaim && ourClaim.bytes < peerClaim.bytes),
    },
  ];
  return {
    details: [
      markdownTable(
        [
          'agent',
          'tool turns asked',
          'outcome',
          'tool turns done',
          'history events',
          'history bytes',
          'of it, model-call events',
          'largest event',
          'wall time per turn',
          'replay (Worker.runReplayHistories)',
        ],
        rows,
      ),
      `Each tool turn returns ${formatCount(textChunkChars)} characters. Both agents call the same scripted model over HTTP: ours through ` +
        'its `openai:` provider (the openai SDK, Chat Completions, OPENAI_BASE_URL), the peer through `createOpenAI({ baseURL })` of ' +
        "@ai-sdk/openai, whose default model speaks the Responses API, served as such. History bytes are the events' protobuf " +
        "encodings over every run of the workflow id; wall time per turn is the client's start-to-end time over the tool turns done. " +
        "Replay uses each agent's own workflow bundle (the peer's built through its plugin).",
    ],
    targets,
  };
}

function summary(result: Measured): string {
  return `${result.run.outcome} after ${formatCount(result.toolTurnsDone)} turns with ${formatBytes(result.bytes)}`;
}
