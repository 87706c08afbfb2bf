// P24 hostile markdown: in real Chromium with the built webview bundle (the browser tests' page,
// test/browser/harness.ts), the main-thread milliseconds the view spends turning an answer into
// HTML when a chat holding it is restored: each markdown that once stalled the view
// (test/support/hostile-markdown.ts, ~93 KB each) ÷ a realistic answer of the same size. The view
// counts the time itself (`markdownWork.ms`, read through window.__piChatTest), so page load and
// harness round trips are not in it. Each sample is a fresh page that first restores a short chat
// (so the bundle's code is warm), then the measured one; the two sides alternate.
import { ChatPage, shared } from "../../test/browser/harness";
import { answeredChat } from "../../test/browser/script";
import { HOSTILE_MARKDOWN_SIZE, REALISTIC_MARKDOWN, STALLING_MARKDOWN } from "../../test/support/hostile-markdown";
import { median } from "../lib/stats";

export const P24_GOAL_RATIO = 2;
export const P24_GOAL_MS = 100;

export interface P24Case {
  name: string;
  hostileMs: number;
  realisticMs: number;
  ratio: number;
}

export interface P24Result {
  cases: P24Case[];
  worst: P24Case;
  runs: number;
  size: number;
}

const chatOf = answeredChat;

/** The view's milliseconds to HTML for a restore of a chat answering `text`, in a fresh page. */
async function restoreMs(text: string): Promise<number> {
  const chat = await ChatPage.open();
  try {
    await chat.snapshot(chatOf("A short answer to warm up."));
    await chat.page.locator(".assistant").waitFor();
    const before = await chat.page.evaluate(() => window.__piChatTest!.markdownMs());
    await chat.snapshot(chatOf(text), { chatId: "chat-2" });
    await chat.page.locator(".assistant").waitFor();
    return (await chat.page.evaluate(() => window.__piChatTest!.markdownMs())) - before;
  } finally {
    await chat.close();
  }
}

export async function runP24(log: (line: string) => void, runs: number): Promise<P24Result> {
  const realistic = REALISTIC_MARKDOWN.repeat(Math.ceil(HOSTILE_MARKDOWN_SIZE / REALISTIC_MARKDOWN.length)).slice(0, HOSTILE_MARKDOWN_SIZE);
  const cases: P24Case[] = [];
  try {
    for (const [name, generate] of Object.entries(STALLING_MARKDOWN)) {
      const hostile = generate();
      const hostileMs: number[] = [];
      const realisticMs: number[] = [];
      for (let run = 0; run < runs; run++) {
        // Alternate which side goes first, so neither always meets a warmer or colder browser.
        if (run % 2 === 0) {
          hostileMs.push(await restoreMs(hostile));
          realisticMs.push(await restoreMs(realistic));
        } else {
          realisticMs.push(await restoreMs(realistic));
          hostileMs.push(await restoreMs(hostile));
        }
      }
      const one = { name, hostileMs: median(hostileMs), realisticMs: median(realisticMs), ratio: median(hostileMs) / Math.max(median(realisticMs), 0.1) };
      log(`  ${name}: ${one.hostileMs.toFixed(1)} ms ÷ ${one.realisticMs.toFixed(1)} ms = ${one.ratio.toFixed(2)}`);
      cases.push(one);
    }
  } finally {
    await (await shared()).close();
  }
  const worst = cases.reduce((a, b) => (b.hostileMs > a.hostileMs ? b : a));
  return { cases, worst, runs, size: HOSTILE_MARKDOWN_SIZE };
}
