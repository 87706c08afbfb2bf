// What a screen reader hears in a browser test: every node added to the webview's live regions, in
// order, as "polite: text" / "assertive: text". Shared by the tests that check announcements.
import type { ChatPage } from "./harness";

declare global {
  interface Window {
    __heard: string[];
  }
}

/** Starts recording what the live regions say. */
export async function listen(chat: ChatPage): Promise<void> {
  await chat.page.evaluate(() => {
    window.__heard = [];
    for (const region of Array.from(document.querySelectorAll<HTMLElement>("[data-live]"))) {
      new MutationObserver((records) => {
        for (const r of records) for (const node of Array.from(r.addedNodes)) window.__heard.push(`${region.dataset.live}: ${node.textContent ?? ""}`);
      }).observe(region, { childList: true });
    }
  });
}

/** What was heard since `listen`. */
export const heard = (chat: ChatPage): Promise<string[]> => chat.page.evaluate(() => window.__heard.slice());
