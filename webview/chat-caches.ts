// What the view keeps per chat outside its state (sections opened, comments being written on a
// plan, rendered markdown, pending Apply requests, highlighted code): let go of all of it when another chat comes on screen, so
// nothing of the old chat stays in memory (test/browser/chat-switch-memory.test.ts).
import { forgetOpenSections } from "./cards/collapsible";
import { forgetPlanDrafts } from "./cards/plan-comments";
import { forgetHighlighting } from "./code-highlight";
import { forgetApplyRequests } from "./markdown/code-block-clicks";
import { forgetRenderedMarkdown } from "./markdown/rendered-cache";

export function forgetChatCaches(): void {
  forgetOpenSections();
  forgetPlanDrafts();
  forgetRenderedMarkdown();
  forgetApplyRequests();
  forgetHighlighting();
}
