// P13 command output bounded: what a command that prints 10 MB costs the view and the model,
// divided by what one that prints 100 KB costs, through the real run_command tool (real bash
// child process), the real AgentEventEncoder/HostChannel path for the view, and the tool result
// text the model gets. Both commands print in 20 bursts 100 ms apart (~2 s), so the live tail
// has time to stream; the update rate of the card is measured on both sides alike.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentEvent } from "@earendil-works/pi-agent-core";
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import { NodeCommandRunner } from "../../src/core/shell/node-runner";
import { estimateTokens } from "../../src/core/context-policy";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createRunCommandTool } from "../../src/core/tools/run-command";
import { singleFolder } from "../../src/core/shell/command-folders";
import { AgentEventEncoder } from "../../src/shared/event-encoder";
import { HostChannel } from "../../src/shared/host-channel";
import { summarize, type Summary } from "../lib/stats";

export const P13_BIG_BYTES = 10_000_000;
export const P13_SMALL_BYTES = 100_000;
const BURSTS = 20;
const LINE_BYTES = 100;

export interface P13Side {
  viewBytes: Summary;
  modelTokens: Summary;
  progressPosts: Summary;
  postsPerSecond: Summary;
  /** Longest gap between two card updates while the command ran (ms). */
  maxGapMs: Summary;
  durationMs: Summary;
  outputBytes: number;
}

export interface P13Result {
  viewRatio: Summary;
  modelRatio: Summary;
  big: P13Side;
  small: P13Side;
  runs: number;
  goal: number;
}

/** A bash command printing `bytes` in BURSTS bursts of 100-byte numbered lines, 100 ms apart. */
function printingCommand(bytes: number): string {
  const linesPerBurst = Math.round(bytes / LINE_BYTES / BURSTS);
  const pad = "x".repeat(LINE_BYTES - 12 - 1);
  return `for i in $(seq 0 ${BURSTS - 1}); do seq -f 'line %06g ${pad}' $((i*${linesPerBurst}+1)) $(((i+1)*${linesPerBurst})); sleep 0.1; done`;
}

async function measureOnce(
  workspace: string,
  logDir: string,
  bytes: number,
): Promise<{ viewBytes: number; modelTokens: number; posts: number; durationMs: number; maxGapMs: number }> {
  const runner = new NodeCommandRunner();
  const tool = createRunCommandTool({
    folders: singleFolder(workspace),
    fs: createNodeWorkspaceFs(workspace),
    runner: () => runner,
    defaultTimeoutSeconds: () => 120,
    logDir,
  });
  let viewBytes = 0;
  const postTimes: number[] = [];
  const channel = new HostChannel((message) => {
    viewBytes += Buffer.byteLength(JSON.stringify(message), "utf8");
  });
  const encoder = new AgentEventEncoder();
  const toolCallId = `p13-${bytes}-${Math.random().toString(36).slice(2, 8)}`;
  const send = (event: AgentEvent) => {
    for (const e of encoder.encode(event)) {
      if (e.type === "tool/progress") postTimes.push(performance.now());
      channel.sendEvent(e);
    }
  };
  const command = printingCommand(bytes);
  const started = performance.now();
  send({ type: "tool_execution_start", toolCallId, toolName: "run_command", args: { command } });
  const result = await tool.execute(toolCallId, { command }, undefined, (partialResult) =>
    send({ type: "tool_execution_update", toolCallId, toolName: "run_command", args: { command }, partialResult }),
  );
  const durationMs = performance.now() - started;
  const message = {
    role: "toolResult" as const,
    toolCallId,
    toolName: "run_command",
    content: result.content,
    details: JSON.parse(JSON.stringify(result.details)) as ToolResultMessage["details"],
    isError: result.isError === true,
    timestamp: Date.now(),
  };
  send({ type: "tool_execution_end", toolCallId, toolName: "run_command", result, isError: message.isError });
  send({ type: "message_start", message });
  send({ type: "message_end", message });
  channel.flush();
  const modelText = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  const gaps = postTimes.map((t, i) => t - (i === 0 ? started : postTimes[i - 1]!));
  await runner.dispose();
  return {
    viewBytes,
    modelTokens: estimateTokens({ role: "user", content: modelText, timestamp: 0 }),
    posts: postTimes.length,
    durationMs,
    maxGapMs: gaps.length ? Math.max(...gaps) : durationMs,
  };
}

export async function runP13(log: (line: string) => void, runs = 5): Promise<P13Result> {
  const workspace = mkdtempSync(join(process.env.TMPDIR ?? "/tmp", "pi-chat-p13-"));
  writeFileSync(join(workspace, "README"), "p13\n");
  const logDir = join(workspace, ".logs");
  const sides = { big: [] as Awaited<ReturnType<typeof measureOnce>>[], small: [] as Awaited<ReturnType<typeof measureOnce>>[] };
  const viewRatios: number[] = [];
  const modelRatios: number[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      // Alternate which side goes first, so machine noise hits both alike.
      const order = run % 2 === 0 ? (["big", "small"] as const) : (["small", "big"] as const);
      const got: Partial<Record<"big" | "small", Awaited<ReturnType<typeof measureOnce>>>> = {};
      for (const side of order) got[side] = await measureOnce(workspace, logDir, side === "big" ? P13_BIG_BYTES : P13_SMALL_BYTES);
      sides.big.push(got.big!);
      sides.small.push(got.small!);
      viewRatios.push(got.big!.viewBytes / got.small!.viewBytes);
      modelRatios.push(got.big!.modelTokens / got.small!.modelTokens);
      log(`  P13 run ${run + 1}: view ${got.big!.viewBytes} / ${got.small!.viewBytes} B, model ${got.big!.modelTokens} / ${got.small!.modelTokens} tokens`);
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const side = (samples: Awaited<ReturnType<typeof measureOnce>>[], outputBytes: number): P13Side => ({
    viewBytes: summarize(samples.map((s) => s.viewBytes)),
    modelTokens: summarize(samples.map((s) => s.modelTokens)),
    progressPosts: summarize(samples.map((s) => s.posts)),
    postsPerSecond: summarize(samples.map((s) => s.posts / (s.durationMs / 1000))),
    maxGapMs: summarize(samples.map((s) => s.maxGapMs)),
    durationMs: summarize(samples.map((s) => s.durationMs)),
    outputBytes,
  });
  return {
    viewRatio: summarize(viewRatios),
    modelRatio: summarize(modelRatios),
    big: side(sides.big, P13_BIG_BYTES),
    small: side(sides.small, P13_SMALL_BYTES),
    runs,
    goal: 1.5,
  };
}
