// Numbers and times as the view writes them. Counts are grouped by hand ("10,000", as en-US
// writes them) instead of through toLocaleString: the first Intl call of a page loads ICU's
// number data, ~25 ms that a long chat's first paint paid for its "Show 9,800 earlier
// messages" line (P22). Times keep the user's locale through one Intl formatter, made once.

/** An integer with commas between thousands ("12,345"), as `toLocaleString("en-US")` writes it; other numbers through it. */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  const digits = String(Math.abs(n));
  let out = "";
  for (let end = digits.length; end > 0; end -= 3) out = digits.slice(Math.max(0, end - 3), end) + (out === "" ? "" : `,${out}`);
  return n < 0 ? `-${out}` : out;
}

let clockFormat: Intl.DateTimeFormat | undefined;

/** "10:42" (or "10:42 AM"): the time a message was written, in the user's locale. */
export function clockTime(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return "";
  clockFormat ??= new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
  return clockFormat.format(ms);
}
