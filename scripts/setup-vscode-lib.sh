# Shared by scripts/setup-vscode.sh and scripts/setup-vscode-latest.sh (sourced; each defines log()).

# Fail loudly if a native build silently did nothing (npm may skip scripts without an error):
# load the module with the `node` on PATH (the one it was built for), from the current folder's node_modules.
check_loads() {
  local m
  for m in "$@"; do
    node -e 'require(process.argv[1])' "$m" >/dev/null 2>&1 ||
      { log "ERROR: $m does not load on Node $(node -p 'process.versions.node') (native build missing?)"; node -e 'require(process.argv[1])' "$m" || true; exit 1; }
    log "  ok: $m loads"
  done
}

# code-server and playwright-core into $DIR with no install scripts (they would download), from a
# package.json of its own so npm does not walk up to the repo's. Uses DIR, CODE_SERVER_VERSION,
# PLAYWRIGHT_CORE_VERSION; $1 names the folder's package, $2 describes it. Leaves the shell in $DIR.
install_code_server() {
  cat >"$DIR/package.json" <<EOF
{
  "name": "$1",
  "private": true,
  "description": "$2",
  "dependencies": {
    "code-server": "$CODE_SERVER_VERSION",
    "playwright-core": "$PLAYWRIGHT_CORE_VERSION"
  }
}
EOF
  cd "$DIR"
  log "npm install code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION (--ignore-scripts)"
  npm install --no-save --ignore-scripts --loglevel=error
}

# What code-server's postinstall would do in lib/vscode ($VSC): its dependencies, then the native
# modules named as arguments rebuilt for the `node` on PATH and each loaded. node-pty's install
# script reports an error after pty.node is built: harmless, so npm's exit code is ignored and each
# module is loaded instead. Leaves the shell in $VSC.
install_vscode_dependencies() {
  cd "$VSC"
  log "lib/vscode: npm install --omit=dev (--ignore-scripts)"
  npm install --omit=dev --ignore-scripts --loglevel=error
  log "lib/vscode: npm rebuild $* (a minute or two on 2 cores)"
  npm rebuild "$@" --foreground-scripts --loglevel=error >"$DIR/rebuild-vscode.log" 2>&1 ||
    log "  (npm rebuild exited non-zero; loading the modules instead, log: $DIR/rebuild-vscode.log)"
  check_loads "$@"
}

# The rest of code-server's postinstall.sh, in $VSC: its links, and the built-in extensions' dependencies.
finish_code_server_postinstall() {
  cd "$VSC"
  ln -sfn node_modules node_modules.asar
  ln -sfn code-linux.sh bin/remote-cli/code-server
  ln -sfn browser-linux.sh bin/helpers/browser.sh
  log "lib/vscode/extensions: npm install --omit=dev"
  (cd extensions && npm install --omit=dev --ignore-scripts --loglevel=error)
}
