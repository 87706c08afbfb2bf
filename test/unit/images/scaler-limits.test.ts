// The image scaler against a decompression bomb, through read_file in a whole chat: a
// 49-megapixel PNG of zeros (a file of about 150 KB, under every size cap and the 50-megapixel
// gate) took 12 s and 970 MB in photon. Its size is read from the header and it is refused with
// the reason before a worker starts (the worker script here counts its starts).
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { ChatService } from "../../../src/core/chat-service";
import { createWorkerImageScaler } from "../../../src/core/images/image-scaler";
import { MAX_SCALE_PIXELS } from "../../../src/core/images/scale-image";
import { createNodeWorkspaceFs } from "../../../src/core/tools";
import { createNodeTranscriptStorage, TranscriptStore } from "../../../src/core/transcript";
import { ImageBlobStore } from "../../../src/core/transcript/image-blobs";
import { makeZeroPng } from "../../support/png";
import { createScriptedModel, reply } from "../../support/scripted-model";
import { tempDir } from "../../support/temp";

describe("image scaler: a decompression bomb is refused from its header", function () {
  this.timeout(60_000);

  it("a 49-megapixel PNG of zeros read by read_file is refused with the reason, and no scaler worker starts", async () => {
    const storage = tempDir("scale-bomb-storage");
    const ws = tempDir("scale-bomb-ws");
    const marker = join(ws.path, "..", `worker-started-${process.pid}`);
    // A worker script that notes each start, then runs the real one.
    const counting = join(storage.path, "counting-worker.js");
    writeFileSync(
      counting,
      `require("fs").appendFileSync(${JSON.stringify(marker)}, "started\\n");\nrequire(${JSON.stringify(resolve(__dirname, "../../../image-scale.js"))});\n`,
    );
    const bomb = makeZeroPng(7000);
    assert.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    writeFileSync(join(ws.path, "black.png"), bomb);
    const model = createScriptedModel({ model: { id: "vision", input: ["text", "image"] } });
    const service = new ChatService({
      store: new TranscriptStore<AgentMessage>(createNodeTranscriptStorage(storage.path), { indexFlushDelayMs: 0 }),
      images: new ImageBlobStore(storage.path),
      imageScaler: createWorkerImageScaler(counting),
      fs: createNodeWorkspaceFs(ws.path),
      workspaceRoot: ws.path,
      resolveModel: async () => model.binding,
      approver: async () => ({ decision: "allow" }),
      approvalMode: () => "ask",
    });
    try {
      const session = service.newChat();
      model.push(reply.tool("read_file", { path: "black.png" }), reply.text("I could not read it."));
      await session.prompt("What is in black.png?");
      const result = model.requests[1]!.find((m) => m.role === "toolResult");
      assert.match(
        JSON.stringify(result),
        new RegExp(`7,000×7,000 px \\(49\\.0 million pixels\\), over the ${MAX_SCALE_PIXELS / 1_000_000} million Pi Chat scales down`),
      );
      assert.equal(existsSync(marker), false, "no scaler worker was started");
    } finally {
      await service.dispose();
      storage.cleanup();
      ws.cleanup();
    }
  });
});
