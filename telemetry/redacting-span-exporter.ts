import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, TimedEvent } from '@opentelemetry/sdk-trace-base';

/**
 * The last step before spans leave the process: every span, ours and the ones
 * Temporal's interceptors make (RunActivity, RunWorkflow, HandleUpdate…), loses
 * the text of its errors. An error message is not ours to export: a tool's
 * error may quote the file it read or words the model chose, a provider's 400
 * may echo the request, a failed run's or turn's failure carries either. Spans
 * say THAT a call failed (status ERROR) and its error TYPE (`error.type`, the
 * `exception` event's `exception.type`), never its message or stack trace.
 * Tracing backends are often read by more people than the runs' history, which
 * may be encrypted; spans never hold it, so no setting can turn this off.
 */
export class RedactingSpanExporter implements SpanExporter {
  constructor(private readonly exporter: SpanExporter) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.exporter.export(spans.map(redactedSpan), resultCallback);
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}

/** A copy of the span without error text: status code kept, status message dropped; exception events keep their type. */
export function redactedSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanId: span.parentSpanId,
    startTime: span.startTime,
    endTime: span.endTime,
    status: { code: span.status.code },
    attributes: redactedAttributes(span.attributes),
    links: span.links,
    events: span.events.map(redactedEvent),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationLibrary: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

const exceptionEvent = 'exception';

function redactedEvent(event: TimedEvent): TimedEvent {
  if (event.name !== exceptionEvent) return event;
  // exception.message and exception.stacktrace go; a stack trace's first line is the message again.
  const type = event.attributes?.['exception.type'];
  return { name: event.name, time: event.time, attributes: { 'exception.type': errorTypeValue(type) } };
}

/**
 * Temporal's workflow spans copy the workflow's info into their attributes; two of its fields are a
 * previous run's outcome: `lastResult` (an answer) and `lastFailure` (an error's text). Both go.
 */
const outcomeAttributes = ['lastResult', 'lastFailure'];

function redactedAttributes(attributes: Attributes): Attributes {
  if (!('error.type' in attributes) && !outcomeAttributes.some((key) => key in attributes)) return attributes;
  const redacted: Attributes = { ...attributes };
  for (const key of outcomeAttributes) delete redacted[key];
  if ('error.type' in redacted) redacted['error.type'] = errorTypeValue(redacted['error.type']);
  return redacted;
}

/**
 * An error type is a class name, a failure type or a status code. Anything else (a name an error
 * was given at run time, which could carry text) is reported as the conventions' `_OTHER`.
 */
export function errorTypeValue(type: AttributeValue | undefined): string {
  return typeof type === 'string' && /^[A-Za-z0-9_.:$-]{1,100}$/.test(type) ? type : '_OTHER';
}
