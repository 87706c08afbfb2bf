// A busy machine on demand, to repeat the "loaded laptop" runs of docs/testing.md: N worker processes that each spin one core
// until this process is killed or its lifetime ends, whichever comes first, so a forgotten load never outlives its run.
//   node scripts/cpu-load.mjs 2                   two CPU-bound processes for at most 60 minutes (the default)
//   node scripts/cpu-load.mjs 2 --minutes 30      ... for at most 30 minutes
//   node scripts/cpu-load.mjs 2 -- npm test       two processes beside `npm test`, stopped when it ends; exits with its code
// Each worker also watches its parent: if the parent dies without a signal reaching the workers (SIGKILL), they stop too.
import { spawn } from "node:child_process";

const WORKER_FLAG = "--worker";
/** How long one spin lasts before the worker checks its parent and its deadline again: short enough to stop promptly. */
const SPIN_SLICE_MS = 200;
const DEFAULT_MINUTES = 60;

if (process.argv[2] === WORKER_FLAG) runWorker(Number(process.argv[3]), Number(process.argv[4]));
else await runLoad(process.argv.slice(2));

/** One CPU-bound process: spins until `deadline` (epoch ms) or until `parentPid` is gone. */
function runWorker(deadline, parentPid) {
  let sink = 0;
  const parentAlive = () => {
    try {
      process.kill(parentPid, 0);
      return true;
    } catch {
      return false;
    }
  };
  // Spin in slices, then yield once so a SIGTERM is handled and the checks run.
  const slice = () => {
    const end = Math.min(Date.now() + SPIN_SLICE_MS, deadline);
    while (Date.now() < end) sink = (sink * 31 + 7) % 1_000_003;
    if (Date.now() >= deadline || !parentAlive()) process.exit(sink === -1 ? 1 : 0);
    setImmediate(slice);
  };
  slice();
}

async function runLoad(args) {
  const separator = args.indexOf("--");
  const own = separator >= 0 ? args.slice(0, separator) : args;
  const command = separator >= 0 ? args.slice(separator + 1) : [];
  const count = Number(own[0] ?? "2");
  const minutesIndex = own.indexOf("--minutes");
  const minutes = minutesIndex >= 0 ? Number(own[minutesIndex + 1]) : DEFAULT_MINUTES;
  if (!Number.isInteger(count) || count < 1 || !(minutes > 0)) {
    console.error("usage: node scripts/cpu-load.mjs N [--minutes M] [-- command ...]");
    process.exit(2);
  }
  const deadline = Date.now() + minutes * 60_000;
  const workers = Array.from({ length: count }, () =>
    spawn(process.execPath, [new URL(import.meta.url).pathname, WORKER_FLAG, String(deadline), String(process.pid)], { stdio: "ignore" }),
  );
  console.error(`cpu-load: ${count} CPU-bound process(es) (pids ${workers.map((w) => w.pid).join(", ")}), at most ${minutes} min`);
  const stopWorkers = () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill("SIGTERM");
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      stopWorkers();
      process.exit(130);
    });
  }

  if (command.length > 0) {
    const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
    const code = await new Promise((resolve) => child.on("close", (c) => resolve(c ?? 1)));
    stopWorkers();
    process.exit(code);
  }
  // No command: stay until the workers end at their deadline (or a signal stops us).
  await Promise.all(workers.map((w) => new Promise((resolve) => w.on("close", resolve))));
  console.error("cpu-load: lifetime over, load stopped");
}
