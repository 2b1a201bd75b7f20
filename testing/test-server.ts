import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isExecutable, runCommand } from '../cli/dev-server/build-tools';
import { cacheDirectory } from '../cli/dev-server/find-temporal-cli';

/**
 * Temporal's time-skipping test server is a Java program (the `temporal-test-server` artifact of the Java SDK), which
 * the TypeScript SDK downloads as a native build from Temporal's own site at run time. A machine that cannot reach
 * that site (this project's CI, or a laptop offline) fetches the same server from Maven Central (with its
 * dependencies, about 33 MB of jars) once, caches it in durable-agent's cache directory, and runs it on the machine's
 * Java through a small launcher script that takes the arguments the SDK gives a test server binary (its port first).
 * `npx durable-agent setup-test-server` fetches it; durable-agent/testing finds it there (findTestServer).
 */
export const testServerVersion = '1.31.0';

export function cachedTestServerPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDirectory(env), 'temporal-test-server', testServerVersion, 'temporal-test-server');
}

const pom = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>durable-agent.test</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${testServerVersion}</version>
    </dependency>
  </dependencies>
</project>
`;

/**
 * `exec`: the SDK stops the server by its process id, which must then be Java's own. The SDK gives a test server 5
 * seconds to listen, which a plain JVM start can miss on a busy two-core machine (7 s measured under load): the
 * C1-only JIT and the serial collector halve the start-up (3.7 s, same load), and the server needs no more.
 */
const launcherScript =
  '#!/bin/sh\nexec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$(dirname "$0")/lib/*" io.temporal.testserver.TestServer "$@"\n';

/** The cached launcher, when `setup-test-server` (or the tests) fetched it; undefined otherwise. */
export async function findCachedTestServer(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const launcher = cachedTestServerPath(env);
  return (await isExecutable(launcher)) ? launcher : undefined;
}

/**
 * The launcher of Temporal's time-skipping test server: TEMPORAL_TEST_SERVER_PATH, else the cached one, else fetched
 * now with Maven (a minute, once). Throws when neither Java nor Maven is there, naming what is missing.
 */
export async function ensureTestServer(log: (line: string) => void = () => {}): Promise<string> {
  const given = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (given) {
    if (await isExecutable(given)) return given;
    throw new Error(`TEMPORAL_TEST_SERVER_PATH=${given} is not an executable file`);
  }
  const launcher = cachedTestServerPath();
  if (await isExecutable(launcher)) {
    // A launcher written by an older version of this script is brought up to date (the jars stay).
    if ((await readFile(launcher, 'utf8').catch(() => '')) !== launcherScript) await writeFile(launcher, launcherScript);
    return launcher;
  }
  const directory = path.dirname(launcher);
  // Built beside the final place and moved in at the end: an interrupted fetch leaves no launcher without its jars.
  const building = `${directory}.partial-${randomUUID()}`;
  await mkdir(building, { recursive: true });
  await writeFile(path.join(building, 'pom.xml'), pom);
  log(`fetching Temporal's test server ${testServerVersion} from Maven Central into ${directory} (once)`);
  try {
    await runCommand(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        path.join(building, 'pom.xml'),
        'dependency:copy-dependencies',
        `-DoutputDirectory=${path.join(building, 'lib')}`,
      ],
      process.env,
      'hide',
    );
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw new Error(
      `could not fetch Temporal's test server with Maven (mvn and java are needed, and Maven Central): ${(error as Error).message}`,
      { cause: error },
    );
  }
  await writeFile(path.join(building, 'temporal-test-server'), launcherScript);
  await chmod(path.join(building, 'temporal-test-server'), 0o755);
  try {
    await rename(building, directory);
  } catch (error) {
    // Another test file fetched it at the same time (jest runs two at once) and moved its copy in first.
    await rm(building, { recursive: true, force: true });
    if (!(await isExecutable(launcher))) throw error;
  }
  return launcher;
}
