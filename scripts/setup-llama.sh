#!/usr/bin/env bash
# llama.cpp's llama-server for the tests that talk to a real local model server (issue 41: the
# window a server reports, its error chunks, `finish_reason: "length"`). Nothing is downloaded from
# outside the npm registry: node-llama-cpp (pinned) carries llama.cpp's whole source as a git bundle
# (`llama/gitRelease.bundle`), which is cloned and built here with cmake, server target only.
# Cached in .test-llama/<version>/: a second run is instant. The model the tests use is committed
# (test/fixtures/models/stories260K.gguf, see the README there).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

NODE_LLAMA_CPP_VERSION=3.21.1
root="$PWD/.test-llama"
dest="$root/$NODE_LLAMA_CPP_VERSION"
if [ -x "$dest/bin/llama-server" ] && [ -f "$dest/.setup-complete" ]; then
  echo "[setup-llama] llama-server cached: $dest/bin/llama-server"
  exit 0
fi

for tool in cmake g++ git; do
  if ! command -v "$tool" >/dev/null; then
    echo "[setup-llama] installing build tools (cmake, g++, git) from Debian's packages"
    if [ "$(id -u)" = 0 ]; then apt-get install -y --no-install-recommends cmake g++ git >/dev/null; else sudo apt-get install -y --no-install-recommends cmake g++ git >/dev/null; fi
    break
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "[setup-llama] node-llama-cpp@$NODE_LLAMA_CPP_VERSION from the npm registry (llama.cpp's source inside)"
(cd "$work" && npm pack "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" --silent >/dev/null)
tar xzf "$work/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" -C "$work" package/llama/gitRelease.bundle package/llama/binariesGithubRelease.json 2>/dev/null ||
  tar xzf "$work/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" -C "$work" package/llama/gitRelease.bundle
git -c advice.detachedHead=false clone --quiet "$work/package/llama/gitRelease.bundle" "$work/llama.cpp"
release=$(cat "$work/package/llama/binariesGithubRelease.json" 2>/dev/null | tr -d '\n ' || true)
echo "[setup-llama] llama.cpp $(git -C "$work/llama.cpp" log -1 --format=%h) ${release}: building llama-server (several minutes on 2 cores)"
cmake -S "$work/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF -DGGML_NATIVE=OFF >"$work/cmake.log" 2>&1 ||
  { tail -30 "$work/cmake.log"; exit 1; }
cmake --build "$work/build" --target llama-server -j "$(nproc)" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }

rm -rf "$dest"
mkdir -p "$dest/bin" "$dest/templates"
cp "$work/build/bin/llama-server" "$dest/bin/"
# The chat templates llama.cpp ships: a tiny model has none of its own, and --jinja needs one with tools.
cp "$work/llama.cpp/models/templates/"*.jinja "$dest/templates/"
touch "$dest/.setup-complete"
echo "[setup-llama] done: $dest/bin/llama-server"
