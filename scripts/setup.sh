#!/usr/bin/env bash
# `npm run setup`: everything `npm test` (and `npm run test:stack`) needs on a fresh machine, installed once:
# the npm dependencies; the Temporal CLI (dev server), MinIO (the tests' S3), the OpenTelemetry Collector (the tests'
# OTLP receiver) and the production stack's Temporal server, SQL tool and Web UI server, each built with Go at a pinned
# version and cached in ~/.cache/durable-agent; Temporal's time-skipping test server (Java, from Maven Central); and
# Debian's chromium (the Web UI tests, through playwright-core), tmux (the terminal tests), Java and Maven (the test
# server) and PostgreSQL's binaries (the stack test). What it cannot install, it names with the command that does.
# .ci/run runs it, then `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()

# npm 11's `npm ci` wants lock entries for every platform's optional native packages (swc, esbuild); a registry that
# serves only linux builds leaves them out of the lock. npm 10 installs the same lock exactly, so it is the fallback.
npm ci --no-audit --no-fund || npx -y npm@10 ci --no-audit --no-fund

# The machine's packages first: Java and Maven fetch the test server below.
debian_packages=()
[ -x /usr/bin/chromium ] || debian_packages+=(chromium)
command -v tmux >/dev/null || debian_packages+=(tmux)
command -v java >/dev/null || debian_packages+=(default-jre-headless)
command -v mvn >/dev/null || debian_packages+=(maven)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || debian_packages+=(postgresql)
if [ ${#debian_packages[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  if command -v apt-get >/dev/null && { [ -z "$SUDO" ] || command -v sudo >/dev/null; }; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${debian_packages[@]}"
  else
    missing+=("the Debian packages ${debian_packages[*]}: sudo apt-get install -y ${debian_packages[*]} (or your system's packages of the same)")
  fi
fi

# The Go builds, each found (cached, or on PATH) or built once: without Go, only what is already cached is there.
failed=()
for script in temporal:cli minio:install otelcol:install stack:install; do
  npm run -s "$script" || failed+=("$script")
done
if [ ${#failed[@]} -gt 0 ]; then
  if command -v go >/dev/null; then
    missing+=("npm run ${failed[*]} failed (above): run them again once the cause is fixed")
  else
    missing+=("Go, which builds them (${failed[*]}): https://go.dev/doc/install, then: npm run setup")
  fi
fi

if command -v java >/dev/null && command -v mvn >/dev/null; then
  npx tsx test/support/test-server/install.ts >/dev/null || missing+=("Temporal's test server: npx tsx test/support/test-server/install.ts (failed above)")
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "npm run setup could not install everything the tests need. Still to do:" >&2
  for item in "${missing[@]}"; do echo "  - $item" >&2; done
  exit 1
fi
echo "npm run setup: everything the tests need is here; run them with: npm test" >&2
