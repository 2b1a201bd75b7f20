# The durable-agent worker: polls the agent task queue and runs the agent
# workflow, the model activities and the file tools. docker-compose.yml builds
# it, and runs `agent codec-server` from it too; docs/docker-compose.md
# describes the stack.
#
#   docker build -t durable-agent-worker .
#   docker run --rm -e TEMPORAL_ADDRESS=host:7233 -v "$PWD/workspace:/workspace" durable-agent-worker

# NODE_VERSION is the Node.js major version of the base image: 24, the active LTS (package.json: node >= 22).
ARG NODE_VERSION=24
FROM node:${NODE_VERSION}-bookworm-slim

WORKDIR /app

# Dependencies first, so that editing the sources reuses this layer. Dev
# dependencies (jest, typescript, eslint) stay out: tsx, a runtime dependency,
# runs the TypeScript entry point, and @temporalio/worker brings its own webpack
# and swc to bundle the workflow code when the worker starts. The Temporal
# native bridge ships prebuilt for linux x64 and arm64 (glibc), so nothing is compiled.
COPY package.json package-lock.json ./
# tsx is a dev dependency of the package (an installed durable-agent runs compiled JavaScript); this image runs the
# TypeScript sources, so it adds tsx, at package.json's version, to the production dependencies.
RUN npm ci --omit=dev --no-audit --no-fund \
    && npm install --omit=dev --no-save --no-audit --no-fund "tsx@$(node -p "require('./package.json').devDependencies.tsx")" \
    && npm cache clean --force

# What the worker loads, plus the CLI (cli/, client/) for the codec
# server docker-compose.yml runs from the same image; test/ and bench/ stay out.
COPY tsconfig.json .swcrc ./
COPY core ./core
COPY mcp ./mcp
COPY agents ./agents
COPY providers ./providers
COPY pricing ./pricing
COPY activities ./activities
COPY storage ./storage
COPY tools ./tools
COPY workflows ./workflows
COPY worker ./worker
COPY telemetry ./telemetry
COPY client ./client
COPY cli ./cli
# agent serve (the CLI's chat endpoint) loads the web handler; agent mcp and the codec server are in serve/, over
# the HTTP guard they share with it (serve/http/).
COPY web ./web
COPY serve ./serve
COPY install ./install
# agent eval: the evals feature (its workflow, cases, graders, scratch copies), which the worker assembles (worker/features.ts).
COPY evals ./evals
# agent schedule, and the schedule_run tool the worker runs: the schedules feature (worker/features.ts).
COPY schedules ./schedules
# agent setup-test-server: fetching Temporal's test server lives with the testing kit (testing/test-server.ts).
COPY testing ./testing

# The file tools' workspace; docker-compose.yml mounts a host directory over it.
RUN mkdir -p /workspace && chown node:node /workspace

# The code stays owned by root; the worker runs as the image's unprivileged user.
USER node

# node runs the TypeScript with tsx's loader in-process, so SIGINT/SIGTERM reach the
# worker itself, which then drains and exits. AGENT_DEFINITIONS names a module of
# agents, tools and providers to register (mount it into the container).
CMD ["node", "--conditions=source", "--import", "tsx", "worker/main.ts"]
