import { execFile } from 'node:child_process';
import http2 from 'node:http2';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A stand-in for the front door of Temporal Cloud in front of the tests' dev
 * server: it speaks gRPC only over TLS, with a certificate for `serverName`
 * signed by a CA of its own, and records the metadata of every call (the API
 * key a client sends as `authorization: Bearer …`) before forwarding it.
 */
export interface TlsGrpcProxy {
  /** 127.0.0.1:PORT, the value for TEMPORAL_ADDRESS. */
  address: string;
  /** The name the certificate is for: TEMPORAL_TLS_SERVER_NAME. */
  serverName: string;
  /** The CA that signed it, a PEM file: TEMPORAL_TLS_SERVER_CA_CERT_PATH. */
  caCertPath: string;
  /** Every call received: its method path and the metadata a Temporal server checks. */
  calls: Array<{ path: string; authorization?: string; namespace?: string }>;
  /** How many TLS handshakes failed (a client that does not trust the certificate, or speaks plaintext). */
  failedHandshakes(): number;
  close(): Promise<void>;
}

const run = promisify(execFile);

export async function startTlsGrpcProxy(target: string, serverName = 'temporal.test.local'): Promise<TlsGrpcProxy> {
  const { key, cert, caCertPath } = await makeCertificates(serverName);
  const upstream = http2.connect(`http://${target}`);
  upstream.on('error', () => {});
  const calls: TlsGrpcProxy['calls'] = [];
  let failedHandshakes = 0;
  const server = http2.createSecureServer({ key, cert, allowHTTP1: false });
  server.on('tlsClientError', () => failedHandshakes++);
  server.on('stream', (downstream, headers) => {
    calls.push({
      path: String(headers[':path']),
      authorization: headers.authorization as string | undefined,
      namespace: headers['temporal-namespace'] as string | undefined,
    });
    const forwarded = Object.fromEntries(
      Object.entries(headers).filter(([name]) => !name.startsWith(':') || name === ':method' || name === ':path'),
    );
    const call = upstream.request(forwarded);
    call.on('error', () => downstream.close(http2.constants.NGHTTP2_INTERNAL_ERROR));
    downstream.on('error', () => call.close(http2.constants.NGHTTP2_CANCEL));
    downstream.on('close', () => !call.closed && call.close(http2.constants.NGHTTP2_CANCEL));
    downstream.pipe(call);
    let trailers: http2.OutgoingHttpHeaders = {};
    call.on('trailers', (received) => (trailers = withoutPseudoHeaders(received)));
    call.on('response', (responseHeaders, flags) => {
      const { ':status': status, ...rest } = responseHeaders;
      // gRPC errors come as "trailers-only" responses: one HEADERS frame that ends the stream.
      if (flags & http2.constants.NGHTTP2_FLAG_END_STREAM)
        return downstream.respond({ ':status': status, ...withoutPseudoHeaders(rest) }, { endStream: true });
      downstream.respond({ ':status': status, ...withoutPseudoHeaders(rest) }, { waitForTrailers: true });
      downstream.on('wantTrailers', () => downstream.sendTrailers(trailers));
      call.pipe(downstream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    serverName,
    caCertPath,
    calls,
    failedHandshakes: () => failedHandshakes,
    async close() {
      upstream.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function withoutPseudoHeaders(headers: http2.IncomingHttpHeaders): http2.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(':')));
}

/** A CA and a server certificate it signed for `serverName` (openssl, as an operator would make them). */
async function makeCertificates(serverName: string): Promise<{ key: Buffer; cert: Buffer; caCertPath: string }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'agent-tls-'));
  const file = (name: string) => path.join(directory, name);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=durable-agent test CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await run('openssl', [
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${serverName}`,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  ]);
  await writeFile(
    file('server.ext'),
    `subjectAltName=DNS:${serverName}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`,
  );
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  ]);
  return { key: await readFile(file('server.key')), cert: await readFile(file('server.pem')), caCertPath: file('ca.pem') };
}
