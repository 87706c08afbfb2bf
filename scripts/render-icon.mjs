// Draws the extension's 128 px Marketplace icon (media/icon.png) from the activity-bar icon
// (media/pi-chat.svg), white on a rounded square, in Debian's chromium. Run it after changing the
// SVG: `node scripts/render-icon.mjs`; the PNG is committed, so packaging needs no browser.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadPlaywright, repoRoot } from "./browser.mjs";

const SIZE = 128;
const svg = readFileSync(join(repoRoot, "media/pi-chat.svg"), "utf8").replace("currentColor", "#ffffff");
const html = `<!doctype html><html><body style="margin:0;background:transparent">
<div style="width:${SIZE}px;height:${SIZE}px;border-radius:24px;background:linear-gradient(135deg,#3b6fd8,#1f3f8f);display:flex;align-items:center;justify-content:center">
<img style="width:96px;height:96px" src="data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}">
</div></body></html>`;

const { chromium } = loadPlaywright();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium", args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(html);
  await page.screenshot({ path: join(repoRoot, "media/icon.png"), omitBackground: true, clip: { x: 0, y: 0, width: SIZE, height: SIZE } });
} finally {
  await browser.close();
}
console.log("media/icon.png written");
