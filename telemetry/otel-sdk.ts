// The only module that loads the OpenTelemetry SDK. telemetry/tracing.ts requires it when, and only
// when, OTEL_EXPORTER_OTLP_ENDPOINT is set: a process without tracing never loads any of this.
import { context, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { setGlobalErrorHandler, suppressTracing, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { AgentSpans } from './agent-spans';
import { errorTypeValue, RedactingSpanExporter } from './redacting-span-exporter';
import {
  errorType,
  modelCallAttributes,
  modelCallSpanName,
  modelResponseAttributes,
  toolCallAttributes,
  toolCallSpanName,
} from './gen-ai-attributes';
import type { Tracing } from './tracing';
import type { TracingSettings } from './tracing-settings';

const instrumentationName = 'durable-agent';

/**
 * Sets up this process's tracing: one tracer provider exporting over OTLP/HTTP
 * in batches, W3C trace context as the propagator (it carries the trace through
 * Temporal's headers from the client to the workflow and its activities), and
 * the official Temporal plugin whose interceptors make the workflow, activity
 * and client spans. Every span leaves through RedactingSpanExporter: no error
 * text (a tool's, a provider's, a failed run's) is exported, only error types.
 */
export function startOpenTelemetry(settings: TracingSettings): Tracing {
  const exporter = new RedactingSpanExporter(new OTLPTraceExporter({ url: settings.tracesUrl, headers: settings.headers }));
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({
    resource: new Resource({ ...settings.resourceAttributes, 'service.name': settings.serviceName }),
    spanProcessors: [spanProcessor],
  });
  // When the app registered an OpenTelemetry SDK of its own first, its context manager and propagator stay in
  // charge (the API refuses a second registration); ours are the same kinds, and every tracer here is explicit.
  provider.register({
    contextManager: new AsyncLocalStorageContextManager().enable(),
    propagator: new W3CTraceContextPropagator(),
  });
  const reportFailure = exportFailureReporter(settings.tracesUrl);
  // Failed background exports reach the SDK's global error handler; a failed flush rejects instead.
  setGlobalErrorHandler(reportFailure);

  const tracer = provider.getTracer(instrumentationName);
  return {
    settings,
    // The workflow spans cross the sandbox through the plugin's sink into the same processor, with the same resource.
    temporalPlugin: new OpenTelemetryPlugin({ resource: provider.resource as Resource, spanProcessor, tracer }),
    clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor({ tracer })] },
    spans: genAiSpans(tracer),
    flush: () => provider.forceFlush().catch(reportFailure),
    untraced: (work) => context.with(suppressTracing(context.active()), work),
  };
}

function genAiSpans(tracer: Tracer): AgentSpans {
  return {
    modelCall: (span, call) =>
      inSpan(tracer, modelCallSpanName(span), SpanKind.CLIENT, modelCallAttributes(span), async (active) => {
        const response = await call();
        active.setAttributes(modelResponseAttributes(response));
        return response;
      }),
    toolCall: (span, call) => inSpan(tracer, toolCallSpanName(span), SpanKind.INTERNAL, toolCallAttributes(span), () => call()),
  };
}

/** Runs `work` in a span that is the active one meanwhile (a child of the activity's span), ending it either way. */
async function inSpan<T>(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Parameters<Span['setAttributes']>[0],
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(name, { kind, attributes }, context.active());
  try {
    return await context.with(trace.setSpan(context.active(), span), () => work(span));
  } catch (error) {
    // The type only: the message of a tool's error may hold what it read or what the model wrote, a provider's
    // may echo the request (the exporter drops any error text all the same, from Temporal's spans too).
    const type = errorTypeValue(errorType(error));
    span.setAttribute('error.type', type);
    span.addEvent('exception', { 'exception.type': type });
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

// The SDK's error handler is silent by default: a wrong endpoint would lose every span without a word.
// Say so on stderr, once a minute at most; runs go on either way.
const reportIntervalMs = 60_000;

function exportFailureReporter(tracesUrl: string): (failure: unknown) => void {
  let lastReport = 0;
  return (failure) => {
    if (Date.now() - lastReport < reportIntervalMs) return;
    lastReport = Date.now();
    console.error(`tracing: spans could not be exported to ${tracesUrl}: ${describe(failure)}`);
  };
}

// A flush rejects with the list of its span processors' errors.
function describe(failure: unknown): string {
  if (Array.isArray(failure)) return failure.map(describe).join('; ');
  if (failure instanceof Error) return failure.message || failure.name;
  return typeof failure === 'string' ? failure : JSON.stringify(failure);
}
