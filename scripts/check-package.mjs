// `npm run package`, then checks the .vsix a user would install: its size, that it holds what
// runs and nothing else (no tests, sources, source maps or fixtures), and that every link and
// image in the packaged README works there. Part of `npm test` (the step "package"); ends with
// `PACKAGE: N passed, M failed`, one count per check. Afterwards the development bundles are
// built again, so out/ is as `npm run build` leaves it.
//   node scripts/check-package.mjs            package, then check pi-chat.vsix
//   node scripts/check-package.mjs --no-pack  check the pi-chat.vsix already there
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";

const repoRoot = new URL("..", import.meta.url).pathname;
const vsixPath = join(repoRoot, "pi-chat.vsix");
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));

// 1.3 MB today, most of it photon's WebAssembly and the provider SDKs' bundle; past 2 MB
// something that does not run (a map, a fixture, a dependency) has slipped in.
const MAX_VSIX_BYTES = 2 * 1024 * 1024;

// Exactly what the extension needs at run time (the bundles already hold every npm dependency).
const EXPECTED = [
  "[Content_Types].xml",
  "extension.vsixmanifest",
  "extension/package.json",
  "extension/readme.md",
  "extension/changelog.md",
  "extension/LICENSE.txt",
  "extension/media/icon.png",
  "extension/media/pi-chat.svg",
  "extension/out/extension.js",
  "extension/out/providers.js",
  "extension/out/image-scale.js",
  "extension/out/photon_rs_bg.wasm",
  "extension/out/webview.js",
  "extension/out/webview.css",
  "extension/out/codicon.ttf",
  "extension/out/highlight.js",
  "extension/out/mcp.js",
  "extension/out/pi-sessions.js",
  "extension/out/composer.js",
];
// Files whose names the build or the content decides: the highlighter's per-language chunks
// (named by esbuild with a hash) and the walkthrough's pages.
const EXPECTED_PATTERNS = [/^extension\/out\/hl-[a-z0-9-]+-[A-Z0-9]+\.js$/, /^extension\/media\/walkthrough\/[a-z0-9-]+\.md$/];
const FORBIDDEN = [
  [/\.map$/, "a source map"],
  [/\.tsx?$/, "a TypeScript source"],
  [/(^|\/)(test|tests|fixtures|src|webview|bench|scripts|docs|node_modules)\//, "a folder that does not run"],
  [/\.test\./, "a test"],
];

if (!process.argv.includes("--no-pack")) {
  const packed = spawnSync("npm", ["run", "--silent", "package"], { cwd: repoRoot, stdio: "inherit" });
  if (packed.status !== 0) {
    console.log("npm run package failed");
    console.log("PACKAGE: 0 passed, 1 failed");
    process.exit(1);
  }
}

let passed = 0;
let failed = 0;
function check(name, problems) {
  if (problems.length === 0) {
    passed += 1;
    console.log(`  ✓ ${name}`);
  } else {
    failed += 1;
    console.log(`  ✗ ${name}\n${problems.map((p) => `      ${p}`).join("\n")}`);
  }
}

/** The entries of a zip file (name → bytes), read from its central directory. */
function readZip(buffer) {
  const endOfDirectory = buffer.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (endOfDirectory < 0) throw new Error("not a zip file");
  const count = buffer.readUInt16LE(endOfDirectory + 10);
  let at = buffer.readUInt32LE(endOfDirectory + 16);
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    const method = buffer.readUInt16LE(at + 10);
    const compressedSize = buffer.readUInt32LE(at + 20);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    const localHeader = buffer.readUInt32LE(at + 42);
    const name = buffer.toString("utf8", at + 46, at + 46 + nameLength);
    const dataStart = localHeader + 30 + buffer.readUInt16LE(localHeader + 26) + buffer.readUInt16LE(localHeader + 28);
    const data = buffer.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, method === 8 ? inflateRawSync(data) : data);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

console.log(`\nchecking ${vsixPath}`);
const size = statSync(vsixPath).size;
check(`size ${(size / 1024 / 1024).toFixed(2)} MB ≤ ${MAX_VSIX_BYTES / 1024 / 1024} MB`, size <= MAX_VSIX_BYTES ? [] : [`${size} bytes`]);

const entries = readZip(readFileSync(vsixPath));
const names = [...entries.keys()].filter((n) => !n.endsWith("/"));
check(
  "nothing that does not run (tests, sources, maps, fixtures)",
  names.flatMap((n) => FORBIDDEN.filter(([re]) => re.test(n)).map(([, what]) => `${n}: ${what}`)),
);
check("exactly the files that run, the icon, README, CHANGELOG and licence", [
  ...EXPECTED.filter((n) => !entries.has(n)).map((n) => `missing: ${n}`),
  ...names.filter((n) => !EXPECTED.includes(n) && !EXPECTED_PATTERNS.some((re) => re.test(n))).map((n) => `not expected: ${n}`),
]);
const manifest = entries.get("extension.vsixmanifest")?.toString("utf8") ?? "";
check("the manifest names the icon and the repository", [
  ...(manifest.includes(`<Icon>extension/${pkg.icon}</Icon>`) ? [] : [`no <Icon> for ${pkg.icon}`]),
  ...(manifest.includes(pkg.repository.url) ? [] : [`no link to ${pkg.repository.url}`]),
]);

// vsce rewrites the README's relative links against the repository: images to
// `<repo>/raw/HEAD/<path>`, links to `<repo>/blob/HEAD/<path>`. Each must name a file the
// repository has, and no relative link may be left (the Marketplace and VS Code would not find it).
const repoWeb = pkg.repository.url.replace(/\.git$/, "");
const readme = entries.get("extension/readme.md")?.toString("utf8") ?? "";
const headings = new Set(
  [...readme.matchAll(/^#+ (.+)$/gm)].map((m) =>
    m[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N} -]/gu, "")
      .replace(/ /g, "-"),
  ),
);
const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g), ...readme.matchAll(/<img [^>]*src="([^"]+)"/g)].map((m) => m[1]);
const tracked = new Set(execFileSync("git", ["ls-files"], { cwd: repoRoot, encoding: "utf8" }).split("\n"));
check(
  `every README link and image (${targets.length}) works in the package`,
  targets.flatMap((target) => {
    if (target.startsWith("#")) return headings.has(target.slice(1)) ? [] : [`${target}: no such heading`];
    if (target.startsWith(`${repoWeb}/`)) {
      const path = target
        .slice(repoWeb.length + 1)
        .replace(/^(blob|raw)\/HEAD\//, "")
        .replace(/#.*$/, "");
      const isImage = /\.(png|jpe?g|gif|webp)$/i.test(path);
      if (isImage && !target.startsWith(`${repoWeb}/raw/`)) return [`${target}: an image must be a raw link`];
      return tracked.has(path) ? [] : [`${target}: ${path} is not committed to the repository`];
    }
    if (/^https:\/\//.test(target)) return [];
    return [`${target}: a relative or non-https link`];
  }),
);

// Put the development bundles (source maps, not minified) back for the suites and the debugger.
const rebuilt = spawnSync("node", ["scripts/build.mjs"], { cwd: repoRoot, stdio: "inherit" });
check("development bundles built again", rebuilt.status === 0 ? [] : ["node scripts/build.mjs failed"]);

console.log(`PACKAGE: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
