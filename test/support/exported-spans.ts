import { readFile } from 'node:fs/promises';
import { startCollector, type CollectorProcess } from './otel-collector/collector-process';

/** A span as the OpenTelemetry Collector received it, flattened from the OTLP JSON its file exporter wrote. */
export interface ExportedSpan {
  traceId: string;
  spanId: string;
  /** Undefined for a trace's root. */
  parentSpanId?: string;
  name: string;
  kind: 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';
  /** service.name of the resource that sent it. */
  service: string;
  attributes: Record<string, unknown>;
  status: 'unset' | 'ok' | 'error';
  events: string[];
}

const kinds = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const statuses = ['unset', 'ok', 'error'] as const;

/** Starts a collector of the test file's own, writing to a fresh spans file. */
export async function startTestCollector(spansFile: string): Promise<CollectorProcess> {
  const binary = process.env.TEST_OTELCOL_BINARY;
  if (!binary) {
    throw new Error(
      `no OpenTelemetry Collector for the tests: ${process.env.TEST_OTELCOL_UNAVAILABLE ?? 'run them through jest (npm test)'}`,
    );
  }
  return startCollector({ binary, spansFile });
}

/** Every span in the collector's file so far (none when it has written nothing yet). */
export async function readExportedSpans(spansFile: string): Promise<ExportedSpan[]> {
  const text = await readFile(spansFile, 'utf8').catch(() => '');
  const spans: ExportedSpan[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    for (const resourceSpans of JSON.parse(line).resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: kinds[span.kind ?? 0],
            service: String(resource['service.name']),
            attributes: attributesOf(span.attributes),
            status: statuses[span.status?.code ?? 0],
            events: (span.events ?? []).map((event: { name: string }) => event.name),
          });
        }
      }
    }
  }
  return spans;
}

interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};

function attributesOf(attributes: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

/**
 * A run's trace: every span in the trace of the client span that started the
 * workflow. (The CLI's progress queries are traces of their own.)
 */
export function runTrace(spans: ExportedSpan[], workflowId: string): ExportedSpan[] {
  const start = spans.find((span) => span.name.startsWith('StartWorkflow:') && span.attributes.temporalWorkflowId === workflowId);
  return start ? spans.filter((span) => span.traceId === start.traceId) : [];
}

/** The one span of that name; fails naming what there is instead. */
export function only(spans: ExportedSpan[], name: string): ExportedSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span "${name}", found ${found.length} among: ${spans.map((span) => span.name).join(', ')}`);
  return found[0];
}

export function named(spans: ExportedSpan[], name: string): ExportedSpan[] {
  return spans.filter((span) => span.name === name);
}

export function parentOf(spans: ExportedSpan[], span: ExportedSpan): ExportedSpan | undefined {
  return spans.find((candidate) => candidate.spanId === span.parentSpanId);
}
