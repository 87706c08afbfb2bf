// What the pi session tests compare: a chat tree as Pi Chat stores it, and the model's view of a branch.
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import type { Message } from "@earendil-works/pi-ai";
import { convertToLlm, transformContext } from "../../../src/core/context-policy";
import type { ImportedPiSession } from "../../../src/core/pi-sessions";
import { ChatTree } from "../../../src/core/transcript";

/** The imported tree as Pi Chat stores it: a system message, the note, then the imported nodes. */
export function treeOf(imported: ImportedPiSession): ChatTree<AgentMessage> {
  const tree = new ChatTree<AgentMessage>();
  tree.add("import-system", null, { role: "system", content: "Pi Chat's own system prompt", timestamp: 0 } as AgentMessage);
  tree.add("import-note", "import-system", imported.notice);
  for (const n of imported.nodes) tree.add(n.id, n.parentId ?? "import-note", n.message);
  return tree;
}

/** Pi Chat's next request for the branch ending at `leaf`, without the system message. */
export function ourModelView(tree: ChatTree<AgentMessage>, leaf: string): Message[] {
  const path = tree.pathMessages(leaf);
  return convertToLlm(transformContext(path, { maxContextTokens: 10_000_000 })).filter((m) => m.role !== "system");
}

/** A chat's own tree (its system message included) from its nodes, file order. */
export function treeOfNodes(nodes: readonly { id: string; parentId: string | null; message: AgentMessage }[], leafId: string | null): ChatTree<AgentMessage> {
  const tree = new ChatTree<AgentMessage>();
  for (const n of nodes) tree.add(n.id, n.parentId, n.message);
  tree.leafId = leafId;
  return tree;
}
