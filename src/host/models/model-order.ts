// The order the model picker lists a provider's models in: the recommended one (the provider's
// default) first, then the newest families, dated snapshots and "latest" aliases last. The
// catalog has no release dates, so "newest" is read from the version in the id (claude-opus-4-8
// before claude-opus-4-5, gpt-6.2 before gpt-5): an alphabetical list put gpt-4 first.
// No VS Code here: unit-tested in Node.

export interface ListedModel {
  id: string;
  name: string;
}

/** A dated snapshot of a model (claude-opus-4-5-20251101, gpt-4o-2024-08-06): the alias above it is the one to pick. */
const SNAPSHOT = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{4})$/;

/** Aliases that move under you (gpt-5-chat-latest, gemini-flash-latest). */
const ALIAS = /latest$/;

/** The version an id carries: "claude-opus-4-8" → [4, 8], "gpt-6.2-sol" → [6, 2], "o3-mini" → [3]. */
export function modelVersion(id: string): number[] {
  const match = /(?:^|[-_a-z])(\d+)(?:[.-](\d{1,2})(?!\d))?/.exec(id.replace(SNAPSHOT, ""));
  if (!match) return [];
  return match[2] !== undefined ? [Number(match[1]), Number(match[2])] : [Number(match[1])];
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (b[i] ?? 0) - (a[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** Lower ranks come first: the recommended model, then current ids, then aliases, then snapshots. */
function rank(model: ListedModel, recommended: string | undefined): number {
  if (model.id === recommended) return 0;
  if (SNAPSHOT.test(model.id)) return 3;
  if (ALIAS.test(model.id)) return 2;
  return 1;
}

/** The provider's models, recommended first, then newest first (ties by name). */
export function orderModels<T extends ListedModel>(models: readonly T[], recommended?: string): T[] {
  return [...models].sort(
    (a, b) => rank(a, recommended) - rank(b, recommended) || compareVersions(modelVersion(a.id), modelVersion(b.id)) || a.name.localeCompare(b.name),
  );
}
