import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A plain HTTP proxy in front of a server (the tests' MinIO) that records each request's method and URL. */
export interface RecordingHttpProxy {
  url: string;
  requests: Array<{ method: string; url: string }>;
  close(): Promise<void>;
}

export async function startRecordingHttpProxy(target: string): Promise<RecordingHttpProxy> {
  const upstream = new URL(target);
  const requests: RecordingHttpProxy['requests'] = [];
  const server = http.createServer((incoming, outgoing) => {
    requests.push({ method: incoming.method!, url: incoming.url! });
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The S3 operation of a path-style request: the SDK's `x-id` query parameter, or HeadObject for HEAD. */
export function s3Operation(request: { method: string; url: string }): string {
  if (request.method === 'HEAD') return 'HeadObject';
  return new URL(request.url, 'http://s3').searchParams.get('x-id') ?? `${request.method} ${request.url}`;
}
