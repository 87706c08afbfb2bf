// A chat as a tree of messages. Every saved message is a node with a parent; editing a prompt
// or retrying an answer adds a sibling, so no branch is ever lost. The current leaf picks one
// path from the root: that path is what the chat shows and what the model is sent.
//
// Built by the parser (format.ts) from the file and grown by the session as it saves; pure
// data, no I/O. Adding a node and reading a path cost O(1) and O(path length).

export interface TreeNode<M> {
  readonly id: string;
  /** null for a root. */
  readonly parentId: string | null;
  readonly message: M;
}

/** Where a path forks: the node on the path, its position among its siblings, and how many there are. */
export interface Fork {
  /** Index of the forking node on the path. */
  pathIndex: number;
  nodeId: string;
  /** 0-based position of the node among its parent's children (in the order they were saved). */
  index: number;
  count: number;
}

/**
 * A node's children live on the node itself, under a symbol (so JSON and the public type do not
 * see them): one map lookup per added node instead of a second map keyed by parent id. Loading
 * a long chat adds ten thousand nodes on the user's path to an open chat (bench P3).
 */
const CHILDREN = Symbol("children");
/** The parent node itself, so walking a path up needs no lookup by id. */
const PARENT = Symbol("parent");
type StoredNode<M> = TreeNode<M> & { [CHILDREN]?: StoredNode<M>[]; [PARENT]?: StoredNode<M> };

export class ChatTree<M> {
  private readonly byId = new Map<string, StoredNode<M>>();
  private readonly roots: StoredNode<M>[] = [];
  /**
   * The node added last. A file written in order names it as the next message's parent: asking
   * for it first spares a map lookup per line (the parser asks for each parent twice).
   */
  private lastAdded: StoredNode<M> | undefined;
  /** The node the next message continues from; null before the first message. */
  leafId: string | null = null;

  get size(): number {
    return this.byId.size;
  }

  has(id: string): boolean {
    return this.lastAdded?.id === id || this.byId.has(id);
  }

  get(id: string): TreeNode<M> | undefined {
    return this.node(id);
  }

  private node(id: string): StoredNode<M> | undefined {
    const last = this.lastAdded;
    return last !== undefined && last.id === id ? last : this.byId.get(id);
  }

  /** Adds a node (its parent must exist, or be null) and makes it the current leaf. */
  add(id: string, parentId: string | null, message: M): TreeNode<M> {
    if (this.byId.has(id)) throw new Error(`duplicate node id ${id}`);
    const node: StoredNode<M> = { id, parentId, message };
    if (parentId === null) this.roots.push(node);
    else {
      const parent = this.node(parentId);
      if (parent === undefined) throw new Error(`unknown parent ${parentId}`);
      (parent[CHILDREN] ??= []).push(node);
      node[PARENT] = parent;
    }
    this.byId.set(id, node);
    this.lastAdded = node;
    this.leafId = id;
    return node;
  }

  childrenOf(id: string | null): readonly TreeNode<M>[] {
    if (id === null) return this.roots;
    return this.byId.get(id)?.[CHILDREN] ?? [];
  }

  /** The nodes from the root to `leafId` (default: the current leaf). */
  path(leafId: string | null = this.leafId): TreeNode<M>[] {
    const out: TreeNode<M>[] = [];
    for (let node = leafId === null ? undefined : this.node(leafId); node !== undefined; node = node[PARENT]) out.push(node);
    return out.reverse();
  }

  /** The messages of `path()`. */
  pathMessages(leafId: string | null = this.leafId): M[] {
    const out: M[] = [];
    for (let node = leafId === null ? undefined : this.node(leafId); node !== undefined; node = node[PARENT]) out.push(node.message);
    return out.reverse();
  }

  /**
   * The leaf reached from `id` by always taking the newest child: switching to a branch shows
   * it as it was last continued.
   */
  newestLeafUnder(id: string): string {
    let current = id;
    for (;;) {
      const kids = this.childrenOf(current);
      const last = kids[kids.length - 1];
      if (!last) return current;
      current = last.id;
    }
  }

  /** Position of a node among its siblings. */
  siblingPosition(id: string): { index: number; count: number; siblings: readonly TreeNode<M>[] } | undefined {
    const node = this.byId.get(id);
    if (!node) return undefined;
    const siblings = this.childrenOf(node.parentId);
    return { index: siblings.indexOf(node), count: siblings.length, siblings };
  }

  /** The forks along a path (nodes that have siblings), from `fromIndex` on. */
  forksOn(path: readonly TreeNode<M>[], fromIndex = 0): Fork[] {
    const forks: Fork[] = [];
    for (let i = Math.max(0, fromIndex); i < path.length; i++) {
      const node = path[i]!;
      const siblings = this.childrenOf(node.parentId);
      if (siblings.length > 1) forks.push({ pathIndex: i, nodeId: node.id, index: siblings.indexOf(node), count: siblings.length });
    }
    return forks;
  }

  /** Every node, in the order they were added (the file order). */
  *nodes(): IterableIterator<TreeNode<M>> {
    yield* this.byId.values();
  }
}
