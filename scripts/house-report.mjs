// The house's size limits, printed by `npm run lint` after Biome: no product file over 500 lines
// and none importing more than 20 other project files, unless the table below says why; and how
// many functions carry a written exception to Biome's cognitive-complexity bar (biome.jsonc).
// Fails (exit 1) when a limit is broken without a reason, or a reason is kept for a file that no
// longer needs it. `node scripts/house-report.mjs --top 10` prints longer lists.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const LINE_LIMIT = 500;
const IMPORT_LIMIT = 20;

/** Files allowed past a limit, each with the reason a reader would otherwise ask for. */
const EXCEPTIONS = {
  lines: {
    "src/core/transcript/store.ts":
      "one class, the store's API over its per-chat write queue, with the 30-line comment of its decisions; format, index, trash, search and tree are already apart",
  },
  imports: {
    "src/host/extension.ts":
      "the activation root: it builds each owner once and registers every view, command and listener VS Code knows of; it holds no logic of its own",
  },
};

const PRODUCT_ROOTS = ["src", "webview"];

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts")) yield path;
  }
}

/** The distinct project files a file imports or re-exports (relative specifiers only). */
function projectImports(text) {
  const specs = new Set();
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*["'](\.{1,2}\/[^"']+)["']/g)) specs.add(m[1]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g)) specs.add(m[1]);
  for (const m of text.matchAll(/\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) specs.add(m[1]);
  return specs.size;
}

const files = PRODUCT_ROOTS.flatMap((dir) => [...sourceFiles(join(root, dir))]).map((path) => {
  const text = readFileSync(path, "utf8");
  return {
    path: relative(root, path),
    lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
    imports: projectImports(text),
    complexityExceptions: (text.match(/biome-ignore lint\/complexity\/noExcessiveCognitiveComplexity/g) ?? []).length,
  };
});

const topArg = process.argv.indexOf("--top");
const top = topArg > 0 ? Number(process.argv[topArg + 1]) : 5;
const problems = [];
for (const [kind, limit, field] of [
  ["lines", LINE_LIMIT, "lines"],
  ["imports", IMPORT_LIMIT, "imports"],
]) {
  for (const file of files) {
    if (file[field] > limit && !EXCEPTIONS[kind][file.path])
      problems.push(`${file.path}: ${file[field]} ${kind}, over ${limit} with no reason in scripts/house-report.mjs`);
  }
  for (const path of Object.keys(EXCEPTIONS[kind])) {
    const file = files.find((f) => f.path === path);
    if (!file || file[field] <= limit) problems.push(`${path}: the ${kind} exception is no longer needed (${file ? file[field] : "no such file"}); remove it`);
  }
}

const list = (by) =>
  [...files]
    .sort((a, b) => b[by] - a[by])
    .slice(0, top)
    .map((f) => `${f[by]} ${f.path}`)
    .join(", ");
const exceptions = files.reduce((sum, f) => sum + f.complexityExceptions, 0);
console.log(`house: ${files.length} product files in src/ and webview/`);
console.log(`  largest (lines, limit ${LINE_LIMIT}): ${list("lines")}`);
console.log(`  most project imports (limit ${IMPORT_LIMIT}): ${list("imports")}`);
console.log(`  functions over cognitive complexity 30, each with its reason beside it: ${exceptions}`);
if (problems.length > 0) {
  console.error(problems.map((p) => `  ✗ ${p}`).join("\n"));
  process.exit(1);
}
