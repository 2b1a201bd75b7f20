import { ApplicationFailure, defaultPayloadConverter, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  decodePayloadWire,
  WorkflowStream,
  workflowStreamPollUpdate,
  type PollInput,
  type PollResult,
  type WorkflowTopicHandle,
} from '@temporalio/workflow-streams/workflow';
import type { CarriedState } from '../core/input';
import { agentStreamTopic, type AgentEvent, type StreamEvent } from '../core/stream-events';
import { streamTailBytes, streamTailLimit, streamTailQuery, type StreamTail } from './definitions';

type CarriedStream = NonNullable<CarriedState['stream']>;

/**
 * Subscribers may wait on a run at once. Each waiting poll is an Update in flight, and Temporal allows 10 per run
 * (`history.maxInFlightUpdates`): the rest stay free for messages, approvals and interrupts.
 */
export const maxWaitingPolls = 4;

/**
 * Polls one run answers before it continues as new. Every poll is an Update, and Temporal allows 2,000 per run
 * (`history.maxTotalUpdates`); session messages may use `updatesBeforeContinueAsNew` (1,000) of them. Past this
 * count, polls are turned away as the package does while a run drains (subscribers retry, and find the next run).
 */
export const pollsBeforeContinueAsNew = 800;

/** The failure type of a poll turned away because `maxWaitingPolls` subscribers already wait: try again later. */
export const streamBusyType = 'StreamBusy';
/** The package's own type for a run about to continue as new or end: its subscribers retry (and follow the chain). */
const streamDrainingType = 'StreamDraining';

/**
 * The run's stream: an `@temporalio/workflow-streams` WorkflowStream hosted by
 * the agent workflow, so any client subscribes by workflow id and every
 * subscription ends with the run. The workflow publishes from its own code (no
 * history event); the model activity publishes text with batched signals.
 *
 * Bounded on every side: the log keeps only the previous turn and the current
 * one, so it never grows with the session and what continue-as-new carries is
 * about the size of those turns' messages, which it carries too; subscribers
 * waiting at once and polls per run are capped, so watchers can never spend the
 * run's Update budget.
 *
 * `Event` is what the hosting workflow publishes: an agent run's events (AgentEvent, the default); the eval workflow
 * hosts one of EvalEvent.
 */
export class AgentStream<Event extends StreamEvent = AgentEvent> {
  private readonly stream: WorkflowStream;
  private readonly topic: WorkflowTopicHandle<Event>;
  /** Where the current turn began: the next turn drops everything before it. */
  private turnStart: number;
  private waiting = 0;
  private detached = false;
  private modelCalls = 0;
  pollsThisRun = 0;

  constructor(carried?: CarriedStream) {
    this.stream = new WorkflowStream(carried?.state);
    this.topic = this.stream.topic<Event>(agentStreamTopic);
    checkStreamLog(this.stream);
    this.turnStart = carried?.turnStart ?? 0;
    const poll = packagePoll(this.stream);
    // The package offers no limit on polls: its handler is wrapped in one that counts them and turns the excess away.
    setHandler(
      workflowStreamPollUpdate,
      async (input: PollInput) => {
        this.waiting++;
        this.pollsThisRun++;
        try {
          return await poll(input);
        } finally {
          this.waiting--;
        }
      },
      { validator: (_input: PollInput) => this.admit() },
    );
    setHandler(streamTailQuery, (from) => this.tail(from));
  }

  publish(event: Event): void {
    this.topic.publish(event);
  }

  /** A turn begins: what came before the previous turn is dropped from the log. */
  beginTurn(): void {
    this.stream.truncate(this.turnStart);
    this.turnStart = this.offset();
  }

  /** A name for the next model call, unique in the run's chain: its text and reply events carry it. */
  nextCallId(): string {
    return `${workflowInfo().runId.slice(0, 8)}-${++this.modelCalls}`;
  }

  /** Whether the polls this run answered call for a new run. */
  continueAsNewDue(): boolean {
    return this.pollsThisRun >= pollsBeforeContinueAsNew;
  }

  /** Before the run ends or continues as new: waiting polls return what they have, and new ones are turned away. */
  detach(): void {
    this.detached = true;
    this.stream.detachPollers();
  }

  /** What the next run starts from (call after `detach`). */
  carry(): CarriedStream {
    return { state: this.stream.getState(), turnStart: this.turnStart };
  }

  /** What the log still holds of this run's topic from offset `from` on, decoded (see streamTailQuery). */
  private tail(from: number): StreamTail<Event> {
    const { base_offset, log } = this.stream.getState();
    const events: StreamTail<Event>['events'] = [];
    let next = Math.max(from, base_offset);
    let bytes = 0;
    while (next - base_offset < log.length) {
      const item = log[next - base_offset];
      const full = events.length >= streamTailLimit || (events.length > 0 && bytes + item.data.length > streamTailBytes);
      if (full) return { events, next, more: true };
      next++;
      if (item.topic !== agentStreamTopic) continue;
      bytes += item.data.length;
      events.push({ offset: next - 1, event: defaultPayloadConverter.fromPayload<Event>(decodePayloadWire(item.data)) });
    }
    return { events, next, more: false };
  }

  /**
   * The offset the next event will get. Read from the package's own fields (checked at construction, like its poll
   * handler): getState() would encode every event the log holds to say how many there are, at each turn's start.
   */
  private offset(): number {
    const { baseOffset, log } = this.stream as unknown as StreamLog;
    return baseOffset + log.length;
  }

  private admit(): void {
    if (this.detached || this.continueAsNewDue()) {
      throw ApplicationFailure.create({
        type: streamDrainingType,
        message: 'the run is about to continue as new or end',
        nonRetryable: true,
      });
    }
    if (this.waiting >= maxWaitingPolls) {
      throw ApplicationFailure.create({
        type: streamBusyType,
        message: `${maxWaitingPolls} subscribers already wait on this run; try again in a moment`,
        nonRetryable: true,
      });
    }
  }
}

/** The fields of WorkflowStream that hold its log (@temporalio/workflow-streams 1.23, pinned in package.json). */
interface StreamLog {
  baseOffset: number;
  log: unknown[];
}

function checkStreamLog(stream: WorkflowStream): void {
  const fields = stream as unknown as Partial<StreamLog>;
  if (typeof fields.baseOffset !== 'number' || !Array.isArray(fields.log))
    throw new Error('@temporalio/workflow-streams changed: WorkflowStream has no baseOffset and log to read');
}

/** The package's own poll handler, which its constructor registered: the wrapper above answers through it. */
function packagePoll(stream: WorkflowStream): (input: PollInput) => Promise<PollResult> {
  const onPoll = (stream as unknown as { onPoll?: (input: PollInput) => Promise<PollResult> }).onPoll;
  if (typeof onPoll !== 'function')
    throw new Error('@temporalio/workflow-streams changed: WorkflowStream has no onPoll handler to wrap');
  return (input) => onPoll.call(stream, input);
}
