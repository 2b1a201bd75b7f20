import type { Worker } from '@temporalio/worker';
import type { ChatHandlerOptions } from '../../web';
import { createTestWorker, uniqueTaskQueue } from '../support/temporal';
import { useTestBed, type TestBed } from '../support/test-bed';
import { serveHandler, type ServedHandler } from './chat-client';

/** What a web test file chooses of its handlers; the connection, task queue and sign-in are the same in every file. */
export type ServedChatOptions = Omit<ChatHandlerOptions, 'client' | 'taskQueue' | 'authorize'>;

export interface ServedChat {
  bed: TestBed;
  /** The worker's task queue, unique to the file. */
  taskQueue: string;
  /** The first (usually only) handler instance, served once the file's beforeAll hooks have run. */
  readonly served: ServedHandler;
  /** Every instance, in the order they were served. */
  instances: ServedHandler[];
}

/** The sign-in of every served handler here: the user is whoever the `x-user` header names, as the tests' clients send. */
export const userFromHeader = (request: Request) => request.headers.get('x-user') ?? undefined;

/**
 * Registers the hooks the web test files share: the test bed, a worker in this process on a fresh task queue, and the
 * chat and AG-UI handlers served on node:http (`instances` of them, as replicas of an app would be) with the options
 * `handlerOptions` returns once the bed is filled in. After each test, the strict fake model must have refused nothing.
 * After the file, the handlers close and the worker lets go of the connection before the bed closes it.
 */
export function useServedChat(name: string, handlerOptions: (bed: TestBed) => ServedChatOptions, instances = 1): ServedChat {
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  const served: ServedHandler[] = [];
  // Registered before the test bed's: jest runs afterAll hooks in the order they were registered.
  afterAll(async () => {
    for (const instance of served) await instance.close();
    worker?.shutdown();
    await running;
  });
  const bed = useTestBed();
  afterEach(() => expect(bed.server.refusals).toEqual([]));
  const taskQueue = uniqueTaskQueue(name);
  beforeAll(async () => {
    worker = await createTestWorker(bed.environment, { taskQueue, env: bed.server.providerEnv });
    running = worker.run();
    for (let index = 0; index < instances; index++) {
      served.push(
        await serveHandler({ client: bed.environment.client, taskQueue, authorize: userFromHeader, ...handlerOptions(bed) }),
      );
    }
  });
  return {
    bed,
    taskQueue,
    get served() {
      return served[0];
    },
    instances: served,
  };
}
