// Finished markdown blocks drawn from a bounded cache of their HTML, keyed by the (immutable) block
// object, so moving an item from the live part into a settled chunk, or scrolling back to it,
// costs no parse.
import type { AssistantBlock } from "../../src/shared/chat-items";
import { Lru } from "../lru";
import { renderMarkdown } from "./markdown";

/** Finished blocks whose HTML is kept: a few screens' worth of answers at the window's overscan. */
const FINAL_HTML_KEPT = 300;

/**
 * Rendered HTML of finished blocks, so an item drawn again (scrolled back to, moved from the live
 * part into the list) costs no parse. Bounded: a long chat scrolled end to end keeps the HTML of
 * the last blocks drawn, not of every answer; the rest is parsed again when drawn again.
 */
const finalHtml = new Lru<AssistantBlock, string>(FINAL_HTML_KEPT);

/** Forgets the rendered HTML (a chat switch: the old chat's blocks are not drawn again soon). */
export function forgetRenderedMarkdown(): void {
  finalHtml.clear();
}

export function FinalMarkdown({ block }: { block: AssistantBlock }) {
  let html = finalHtml.get(block);
  if (html === undefined) {
    html = renderMarkdown(block.text);
    finalHtml.set(block, html);
  }
  return <div class="md" dangerouslySetInnerHTML={{ __html: html }} />;
}
