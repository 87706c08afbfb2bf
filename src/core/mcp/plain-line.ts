// A server's words (tool descriptions, instructions) as one plain line for the system prompt or a
// tool's answer: a server is untrusted, so nothing it writes may start a line of its own there
// (a heading, a fence, a list item that reads as ours), and every request carries it, so it is capped.

/** One line: control characters and line breaks become spaces, backticks become quotes, cut to `max` with "…". */
export function plainLine(text: string, max: number): string {
  const flat = text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .replace(/`/g, "'")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
