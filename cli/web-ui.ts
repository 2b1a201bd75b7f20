/**
 * The Web UI address of a run. TEMPORAL_UI_URL overrides the guess; a local
 * server's UI is on :8233 (dev server), Temporal Cloud's at cloud.temporal.io.
 */
export function webUiBase(address: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.TEMPORAL_UI_URL) return env.TEMPORAL_UI_URL.replace(/\/+$/, '');
  const host = address.replace(/:\d+$/, '');
  if (host === 'localhost' || host === '127.0.0.1') return 'http://localhost:8233';
  if (host.endsWith('.tmprl.cloud')) return 'https://cloud.temporal.io';
  return undefined;
}

export function runLink(base: string | undefined, namespace: string, workflowId: string, runId?: string): string | undefined {
  if (!base) return undefined;
  const path = `/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return `${base}${path}${runId ? `/${runId}` : ''}/history`;
}

/**
 * What a command that started the embedded server says as it stops it: the Web UI link it printed stops working now,
 * and `agent dev` is how to keep the server, its UI and a worker running between commands.
 */
export function embeddedServerClosing(programName: string): string {
  return `the embedded Temporal server stops with this command, and the Web UI link with it; to keep them open, start \`${programName} dev\` in another terminal before the next run`;
}
