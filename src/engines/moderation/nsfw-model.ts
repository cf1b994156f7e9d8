/**
 * Loads nsfwjs's MobileNetV2 image classifier fully offline.
 *
 * nsfwjs 4.3.0 ships its models inside the package as JS modules: `models/mobilenet_v2/
 * model.min.js` exports the layers-model JSON and `group1-shard1of1.min.js` exports the
 * weights as one base64 string. We import those modules directly and hand tfjs an in-memory
 * IOHandler, so nothing is fetched. (nsfwjs's own `load("MobileNetV2")` does the same but
 * logs an advert on every load and converts 3.5 MB of base64 one character at a time.)
 *
 * Backend: tfjs's WebAssembly backend. tfjs-node fails to install offline and the pure-JS
 * "cpu" backend is ~10× slower. The backend is process-global in tfjs; moderation is its only
 * user in kinora, so we set it here.
 */
import { createRequire } from "node:module";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { NSFWJS } from "nsfwjs/core";
import { MobileNetV2Model } from "nsfwjs/models/mobilenet_v2";

/** The model's input edge in pixels. */
export const NSFW_INPUT_SIZE = 224;

/** Output order of the model's softmax (nsfwjs `NSFW_CLASSES`). */
export const NSFW_CLASS_NAMES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;

const require = createRequire(import.meta.url);

let backendReady: Promise<void> | undefined;

/** Selects the wasm backend once per process, reading the .wasm binaries from node_modules. */
function ensureWasmBackend(): Promise<void> {
  backendReady ??= (async () => {
    const pkg = require.resolve("@tensorflow/tfjs-backend-wasm/package.json");
    // A file-system prefix (with trailing separator): Node's emscripten loader reads it with fs.
    setWasmPaths(`${path.join(path.dirname(pkg), "dist")}${path.sep}`);
    if (!(await tf.setBackend("wasm"))) throw new Error("tfjs wasm backend failed to initialise");
    await tf.ready();
  })();
  return backendReady;
}

type ModelJson = tf.io.ModelJSON;

/** Builds the model artifacts from the JS modules bundled in nsfwjs. */
async function bundledArtifacts(): Promise<tf.io.ModelArtifacts> {
  // cast: the model package's JSON import is typed loosely; its default export is the model.json
  const json = ((await MobileNetV2Model.modelJson()) as { default: ModelJson }).default;
  const shards = await Promise.all(
    // Typed here: nsfwjs 4.3.0's declarations import "../core" without its extension, which
    // NodeNext resolution cannot follow (4.4.0 fixed only that, and pins Node 22.13.0).
    MobileNetV2Model.weightBundles.map(async (load: () => Promise<{ default: string }>) =>
      Buffer.from((await load()).default, "base64"),
    ),
  );
  const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
  const weightData = Buffer.concat(shards);
  return {
    modelTopology: json.modelTopology,
    weightSpecs,
    // Copy into a standalone ArrayBuffer: Buffer.concat may return a view into a shared pool.
    weightData: weightData.buffer.slice(
      weightData.byteOffset,
      weightData.byteOffset + weightData.byteLength,
    ),
  };
}

/**
 * Loads the bundled MobileNetV2 model (≈ 0.3 s). Callers cache the promise; each call builds a
 * new model.
 */
export async function loadNsfwModel(): Promise<NSFWJS> {
  await ensureWasmBackend();
  const model = new NSFWJS(tf.io.fromMemory(await bundledArtifacts()), {
    size: NSFW_INPUT_SIZE,
  });
  await model.load();
  return model;
}
