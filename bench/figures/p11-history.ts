// P11 history: opening the history and finding a chat by its title, with 1,000 saved chats ÷ with
// 10. Each side is a storage folder written by the store (chats of 20 generated messages each, a
// word in a few titles); a side's figure = TranscriptStore.listChats() (the index in memory,
// after two stats that would show another window's writes: the chats folder and index.json) +
// TranscriptStore.searchTitles(word) (the same check, then the lower-cased titles the list keeps),
// as the view's history search does, on a store that has listed once (VS Code keeps one
// per window), measured once the files are older than the racy window (list-freshness.ts), as
// they are when a user opens the history. Beside it: the first list of a window (it stats every
// chat file), a list just after another window added a chat (the folder is read again, that
// chat is read, index.json merged), and full-text search (TranscriptStore.searchChats: every
// chat file read, parsed only on a hit) of the 1,000 chats.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { join } from "node:path";
import { createNodeTranscriptStorage, TranscriptStore } from "../../src/core/transcript";
import { RACY_MS } from "../../src/core/transcript/list-freshness";
import { generateTranscript } from "../lib/data";
import { gc, median, now, summarize, type Summary } from "../lib/stats";

export const P11_BIG = 1_000;
export const P11_SMALL = 10;
const MESSAGES_PER_CHAT = 20;
const WORD = "zanzibar";

export interface P11Result {
  ratio: Summary;
  bigMs: Summary;
  smallMs: Summary;
  fullTextMs: Summary;
  fullTextHits: number;
  titleHits: number;
  /** The first list of a store over the 1,000 chats (every chat file stat-ed). */
  firstListMs: Summary;
  /** A list over the 1,000 chats just after another store added a chat and wrote index.json. */
  afterOtherWindowMs: Summary;
  goal: number;
}

async function seed(root: string, chats: number): Promise<void> {
  const store = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(root), { indexFlushDelayMs: 0 });
  for (let i = 0; i < chats; i++) {
    const messages = generateTranscript(MESSAGES_PER_CHAT, 100 + i);
    // Every 50th chat's title names the word; every 100th chat says it in an answer only.
    const title = i % 50 === 0 ? `Trip to ${WORD} #${i}` : undefined;
    if (i % 100 === 7) {
      const last = messages.length - 1;
      const m = messages[last]!;
      if (m.role === "assistant") messages[last] = { ...m, content: [...m.content, { type: "text", text: `Also: ${WORD}.` }] };
    }
    await store.createChat({ id: `chat-${i}`, ...(title ? { title } : {}), messages });
  }
  await store.close();
}

export async function runP11(dir: string, log: (line: string) => void, runs = 9, listsPerRun = 15): Promise<P11Result> {
  const roots = { big: join(dir, "p11-big"), small: join(dir, "p11-small") };
  await seed(roots.big, P11_BIG);
  await seed(roots.small, P11_SMALL);
  const stores = {
    big: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(roots.big), { indexFlushDelayMs: 0 }),
    small: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(roots.small), { indexFlushDelayMs: 0 }),
  };
  const firstList: number[] = [];
  for (let i = 0; i < runs; i++) {
    const fresh = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(roots.big), { indexFlushDelayMs: 60_000 });
    const t0 = now();
    await fresh.listChats();
    firstList.push(now() - t0);
  }
  // A user opens the history seconds after the last write, not in the same clock tick: until
  // then every list reads the folder again (a timestamp that recent proves nothing).
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 200));
  let titleHits = 0;
  const listAndFilter = async (side: "big" | "small"): Promise<number> => {
    const t0 = now();
    const chats = await stores[side].listChats();
    const found = await stores[side].searchTitles(WORD);
    if (chats.length === 0) throw new Error("P11: nothing listed");
    const t1 = now();
    if (side === "big") titleHits = found.length;
    return t1 - t0;
  };
  await listAndFilter("big");
  await listAndFilter("small");

  const ratios: number[] = [];
  const bigMs: number[] = [];
  const smallMs: number[] = [];
  const fullText: number[] = [];
  let fullTextHits = 0;
  for (let run = 0; run < runs; run++) {
    gc();
    const a: number[] = [];
    const b: number[] = [];
    for (let i = 0; i < listsPerRun; i++) {
      if ((i + run) % 2 === 0) {
        a.push(await listAndFilter("big"));
        b.push(await listAndFilter("small"));
      } else {
        b.push(await listAndFilter("small"));
        a.push(await listAndFilter("big"));
      }
    }
    ratios.push(median(a) / median(b));
    bigMs.push(median(a));
    smallMs.push(median(b));
    gc();
    const t0 = now();
    fullTextHits = (await stores.big.searchChats(WORD, P11_BIG)).length;
    fullText.push(now() - t0);
    log(
      `  P11 run ${run + 1}/${runs}: list+titles ${median(a).toFixed(2)} / ${median(b).toFixed(2)} ms = ${(median(a) / median(b)).toFixed(2)}; full text ${fullText.at(-1)!.toFixed(0)} ms`,
    );
  }
  // Another window adds a chat and writes index.json; this window's next list sees it.
  const afterOther: number[] = [];
  const other = new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(roots.big), { indexFlushDelayMs: 60_000 });
  for (let i = 0; i < runs; i++) {
    await other.createChat({ id: `other-${i}`, messages: generateTranscript(MESSAGES_PER_CHAT, 5_000 + i) });
    await other.flush();
    gc();
    const t0 = now();
    const listed = await stores.big.listChats();
    afterOther.push(now() - t0);
    if (!listed.some((c) => c.id === `other-${i}`)) throw new Error("P11: the other window's chat is not listed");
  }
  await other.close();
  await stores.big.close();
  await stores.small.close();
  return {
    ratio: summarize(ratios),
    bigMs: summarize(bigMs),
    smallMs: summarize(smallMs),
    fullTextMs: summarize(fullText),
    fullTextHits,
    titleHits,
    firstListMs: summarize(firstList),
    afterOtherWindowMs: summarize(afterOther),
    goal: 2,
  };
}
