import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RedactingSpanExporter } from '../../telemetry/redacting-span-exporter';

// What every span of a traced process goes through before it is exported (telemetry/otel-sdk.ts).

const canary = 'CANARY-the-file-said-attack-at-dawn';

function tracerExportingTo(exported: InMemorySpanExporter) {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new RedactingSpanExporter(exported))] });
  return provider.getTracer('test');
}

it('drops error messages and stack traces, as Temporal’s interceptors record them, and keeps status and error type', () => {
  const exported = new InMemorySpanExporter();
  const span = tracerExportingTo(exported).startSpan('RunActivity:read_file', {
    attributes: { 'gen_ai.tool.name': 'read_file' },
  });
  // What @temporalio/interceptors-opentelemetry does with a failed activity.
  const error = new Error(`could not parse: ${canary}`);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  span.recordException(error);
  span.setAttribute('error.type', 'ToolRefused');
  span.addEvent('progress', { step: 1 });
  span.end();

  const [sent] = exported.getFinishedSpans();
  expect(JSON.stringify(sent, (_key, value) => (typeof value === 'bigint' ? String(value) : value))).not.toContain(canary);
  expect(sent.status).toEqual({ code: SpanStatusCode.ERROR });
  expect(sent.attributes).toEqual({ 'gen_ai.tool.name': 'read_file', 'error.type': 'ToolRefused' });
  expect(sent.events.map((event) => [event.name, event.attributes])).toEqual([
    ['exception', { 'exception.type': 'Error' }],
    ['progress', { step: 1 }],
  ]);
  expect(sent.spanContext()).toEqual(span.spanContext());
});

it('reports an error type that is not an identifier as _OTHER: an error’s name can be set to any text at run time', () => {
  const exported = new InMemorySpanExporter();
  const span = tracerExportingTo(exported).startSpan('execute_tool x');
  span.recordException({ name: `Error ${canary} with spaces`, message: 'm' });
  span.setAttribute('error.type', `${canary} and more`);
  span.end();

  const [sent] = exported.getFinishedSpans();
  expect(sent.attributes['error.type']).toBe('_OTHER');
  expect(sent.events[0].attributes).toEqual({ 'exception.type': '_OTHER' });
});

it('drops a previous run’s result and failure, which Temporal’s workflow spans copy from the workflow info', () => {
  const exported = new InMemorySpanExporter();
  const span = tracerExportingTo(exported).startSpan('RunWorkflow:agentWorkflow', {
    attributes: { workflowId: 'agent-1', lastResult: canary, lastFailure: canary },
  });
  span.end();

  expect(exported.getFinishedSpans()[0].attributes).toEqual({ workflowId: 'agent-1' });
});
