// The worker thread that scales one image (out/image-scale.js): photon's WebAssembly is loaded
// here, off the extension host's thread, and only when an image needs scaling.
import { parentPort } from "node:worker_threads";
import * as photon from "@silvia-odwyer/photon-node";
import { scaleImage, type PhotonLike, type ScaleRequest } from "./scale-image";

parentPort?.once("message", (request: ScaleRequest) => {
  const result = scaleImage(photon as unknown as PhotonLike, request);
  parentPort?.postMessage(result, result.ok ? [result.bytes.buffer as ArrayBuffer] : []);
});
