// P12 branch switch: the `‹ 1 / 2 ›` click in a 10,000-message chat ÷ in a 10-message chat. Each
// chat is saved as the store saves it (format 2), with a second version of its last prompt and
// answer (what an edit leaves), and opened through ChatService as the extension opens it. A
// switch = ChatSession.switchBranch: the path below the fork is swapped (no file is re-read), a
// leaf line is appended, and the view gets a rewind plus the changed messages. Timed from the
// call to the last event the view receives; what those events weigh as JSON (what the host
// posts) is reported beside the size of a full snapshot of the same chat.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ChatService } from "../../src/core/chat-service";
import type { ChatSession } from "../../src/core/session";
import { createNodeWorkspaceFs } from "../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import type { ChatEvent } from "../../src/shared/protocol";
import { generateTranscript } from "../lib/data";
import { gc, median, now, summarize, type Summary } from "../lib/stats";

export const P12_BIG = 10_000;
export const P12_SMALL = 10;

export interface P12Result {
  ratio: Summary;
  bigMs: Summary;
  smallMs: Summary;
  /** JSON bytes of the events one switch posts, and of a full snapshot of the chat. */
  postedBytes: { big: number; small: number; bigSnapshot: number };
  goal: number;
}

async function chatWithTwoVersions(store: TranscriptStore<AgentMessage>, id: string, count: number, seed: number): Promise<number> {
  const messages = generateTranscript(count, seed);
  let prompt = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      prompt = i;
      break;
    }
  }
  if (prompt < 1) throw new Error(`P12: no prompt to fork in ${count} messages`);
  const created = await store.createChat({ id, messages });
  const again = messages
    .slice(prompt, prompt + 2)
    .map((m) => (m.role === "user" ? { ...m, content: [{ type: "text" as const, text: "the same question, edited" }] } : m));
  await store.appendMany(id, again, { parentId: created.nodeIds[prompt - 1]! });
  return prompt;
}

export async function runP12(dir: string, log: (line: string) => void, runs = 9, switchesPerRun = 40): Promise<P12Result> {
  const root = join(dir, "p12");
  const ws = join(dir, "p12-ws");
  mkdirSync(ws, { recursive: true });
  const storage = createNodeTranscriptStorage(root);
  const writer = new TranscriptStore<AgentMessage>(storage, { indexFlushDelayMs: 0 });
  const forkAt = { big: await chatWithTwoVersions(writer, "big", P12_BIG, 12), small: await chatWithTwoVersions(writer, "small", P12_SMALL, 12) };
  await writer.close();

  const service = new ChatService({
    store: new TranscriptStore<AgentMessage>(storage, { indexFlushDelayMs: 0 }),
    fs: createNodeWorkspaceFs(ws),
    workspaceRoot: ws,
    resolveModel: () => Promise.reject(new Error("P12 sends nothing")),
    approver: async () => ({ decision: "deny" }),
    approvalMode: () => "ask",
  });
  const open = async (id: string): Promise<ChatSession> => {
    const opened = await service.open(id);
    if (!opened.ok) throw new Error(`P12: ${id} did not open: ${opened.reason}`);
    return opened.session;
  };
  const sessions = { big: await open("big"), small: await open("small") };
  // The path shown is the edited version (the last saved): switching goes to 0 and back to 1.
  const target = { big: 0, small: 0 };
  const posted = { big: 0, small: 0 };
  let counting: "big" | "small" | undefined;
  for (const side of ["big", "small"] as const) {
    sessions[side].onEvent((event: ChatEvent) => {
      if (counting === side) posted[side] += JSON.stringify(event).length;
    });
  }
  const bigSnapshot = JSON.stringify(sessions.big.viewState).length;
  const switchOnce = async (side: "big" | "small"): Promise<number> => {
    const session = sessions[side];
    const t0 = now();
    await session.switchBranch(forkAt[side], target[side]);
    const t1 = now();
    target[side] = 1 - target[side];
    return t1 - t0;
  };
  // Warm up (and check that a switch really swaps the path).
  for (const side of ["big", "small"] as const) {
    const before = sessions[side].messages.at(-2);
    await switchOnce(side);
    if (sessions[side].messages.at(-2) === before) throw new Error(`P12: the ${side} switch changed nothing`);
    await switchOnce(side);
  }
  for (const side of ["big", "small"] as const) {
    counting = side;
    await switchOnce(side);
    counting = undefined;
    await switchOnce(side);
  }

  const ratios: number[] = [];
  const bigMs: number[] = [];
  const smallMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    gc();
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < switchesPerRun; i++) {
      if ((i + run) % 2 === 0) {
        a.push(await switchOnce("big"));
        b.push(await switchOnce("small"));
      } else {
        b.push(await switchOnce("small"));
        a.push(await switchOnce("big"));
      }
    }
    ratios.push(median(a) / median(b));
    bigMs.push(median(a));
    smallMs.push(median(b));
    log(`  P12 run ${run + 1}/${runs}: ${median(a).toFixed(3)} / ${median(b).toFixed(3)} ms = ${(median(a) / median(b)).toFixed(2)}`);
  }
  await service.dispose();
  return {
    ratio: summarize(ratios),
    bigMs: summarize(bigMs),
    smallMs: summarize(smallMs),
    postedBytes: { big: posted.big, small: posted.small, bigSnapshot },
    goal: 2,
  };
}
