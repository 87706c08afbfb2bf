// What a drop on the composer or a paste into it names, for `@` mentions. VS Code's explorer and
// editor tabs put the dragged resources on the DataTransfer as strings (no File objects):
// `application/vnd.code.uri-list` (every URI, folders too, one a line), `resourceurls` (a JSON
// array of file URIs), `codeeditors` (JSON, for tabs) and `text/uri-list` (only the first URI,
// Chromium bug 239745). Only the names go to the host, which checks each is in the workspace.

/** The types (as Chromium lists them: lowercase) that carry VS Code resources, most complete first. */
const RESOURCE_TYPES = ["application/vnd.code.uri-list", "resourceurls", "codeeditors", "text/uri-list"] as const;

/** Whether a drag carries resources (its data can be read only on drop; its types, during the drag). */
export function carriesResources(data: DataTransfer | null): boolean {
  const types = Array.from(data?.types ?? []).map((t) => t.toLowerCase());
  return RESOURCE_TYPES.some((t) => types.includes(t));
}

/**
 * The URIs a drop names (read in the drop event), or none. Web links alone (a link dragged from a
 * page) are not resources: their drop stays the textarea's, which inserts the link's text.
 */
export function droppedUris(data: DataTransfer | null): string[] {
  if (!data) return [];
  const read = (type: string): string => {
    try {
      return data.getData(type);
    } catch {
      return "";
    }
  };
  const lines = (text: string) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("#"));
  const json = (text: string): unknown[] => {
    try {
      const value: unknown = JSON.parse(text);
      return Array.isArray(value) ? value : [];
    } catch {
      return [];
    }
  };
  let uris = lines(read("application/vnd.code.uri-list"));
  if (uris.length === 0) uris = json(read("resourceurls")).filter((u): u is string => typeof u === "string");
  if (uris.length === 0)
    uris = json(read("codeeditors")).flatMap((e) => {
      const resource = typeof e === "object" && e !== null ? (e as { resource?: unknown }).resource : undefined;
      return typeof resource === "string" ? [resource] : [];
    });
  if (uris.length === 0) uris = lines(read("text/uri-list"));
  const unique = [...new Set(uris)];
  return unique.every((u) => /^(https?|mailto|data):/i.test(u)) ? [] : unique;
}

/**
 * Whether pasted text may be a path worth asking the host about: one line, not too long, and
 * shaped like a path (a slash, or a file name with an extension) — never a sentence or a web link.
 */
export function looksLikePath(text: string): boolean {
  const t = text.trim();
  if (t === "" || t.length > 1024 || /[\r\n\t]/.test(t) || /^(https?|mailto|data):/i.test(t)) return false;
  if (/[/\\]/.test(t)) return !/\s{2,}/.test(t) && t.split(/\s+/).length <= 4;
  return /^[\w.@+-]+\.[A-Za-z0-9]{1,10}$/.test(t);
}
