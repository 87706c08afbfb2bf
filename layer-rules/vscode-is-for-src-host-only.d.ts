// A layer's tsconfig maps a module it must not use here ("paths"), so an import of it finds this
// empty module and fails to compile: "vscode-is-for-src-host-only" is the rule. See tsconfig.layers.json.
export {};
