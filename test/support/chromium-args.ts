// The flags every headless Chromium of this repository starts with (browser tests and the P1/P4
// benchmarks): no sandbox (containers), no GPU, nothing that talks to the network on its own.
// A benchmark adds its own timing flags after these.
export const CHROMIUM_LAUNCH_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
