// The parsers of what local servers say about their window (src/core/context/server-window.ts), one
// per server's own JSON shape as the server sends it, and the order in which their answers count.
import assert from "node:assert/strict";
import {
  OLLAMA_DEFAULT_NUM_CTX,
  parseLlamaProps,
  parseLlamaSlots,
  parseLmStudioModels,
  parseOllamaPs,
  parseOllamaShow,
  parseOpenAIModels,
  parseTokenScale,
  calibrationEstimate,
  serverRoot,
  windowFromAnswers,
  windowSettingFix,
} from "../../../src/core/context/server-window";

// llama-server 3.21.1's GET /props (trimmed), as the real server in test/support/llama-server.ts answers.
const LLAMA_PROPS = {
  default_generation_settings: { n_ctx: 4096, params: { n_predict: -1 } },
  total_slots: 1,
  model_alias: "stories260K",
  model_path: "/models/stories260K.gguf",
  chat_template_caps: { supports_tools: true },
};

// Ollama's GET /api/ps with one model loaded at 8,192 tokens.
const OLLAMA_PS = {
  models: [
    {
      name: "qwen2.5-coder:7b",
      model: "qwen2.5-coder:7b",
      size: 6_654_289_920,
      digest: "2b0496514337",
      details: { family: "qwen2", parameter_size: "7.6B", quantization_level: "Q4_K_M" },
      expires_at: "2026-12-06T10:05:00Z",
      size_vram: 6_654_289_920,
      context_length: 8192,
    },
  ],
};

// Ollama's POST /api/show of a model with a 32k training length and no num_ctx in its Modelfile.
const OLLAMA_SHOW = {
  parameters: 'stop "<|im_end|>"',
  model_info: { "general.architecture": "qwen2", "qwen2.context_length": 32768, "qwen2.embedding_length": 3584 },
};

// LM Studio's GET /api/v0/models: one model loaded with 4,096 tokens, one not loaded.
const LM_STUDIO = {
  object: "list",
  data: [
    { id: "qwen2.5-7b-instruct", object: "model", type: "llm", state: "loaded", max_context_length: 32768, loaded_context_length: 4096 },
    { id: "llama-3.2-1b", object: "model", type: "llm", state: "not-loaded", max_context_length: 131072 },
    { id: "text-embedding-nomic", object: "model", type: "embeddings", state: "loaded", max_context_length: 2048 },
  ],
};

// vLLM's GET /v1/models.
const VLLM_MODELS = { object: "list", data: [{ id: "Qwen/Qwen2.5-7B-Instruct", object: "model", owned_by: "vllm", max_model_len: 16384 }] };

describe("server-window: what local servers say about their window", () => {
  it("the server root of a base URL drops /v1 and trailing slashes", () => {
    assert.equal(serverRoot("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080");
    assert.equal(serverRoot("http://localhost:11434/v1/"), "http://localhost:11434");
    assert.equal(serverRoot("https://host/proxy/v1"), "https://host/proxy");
    assert.equal(serverRoot("http://host:1234"), "http://host:1234");
  });

  it("llama-server: /props n_ctx and the model's alias; /slots n_ctx", () => {
    assert.deepEqual(parseLlamaProps(LLAMA_PROPS), { server: "llama.cpp", contextWindow: 4096, modelId: "stories260K", source: "llama-server /props n_ctx" });
    assert.equal(parseLlamaProps({ ...LLAMA_PROPS, model_alias: undefined })?.modelId, "/models/stories260K.gguf");
    assert.equal(parseLlamaProps({ default_generation_settings: {} }), undefined);
    assert.equal(parseLlamaProps("<html>"), undefined);
    assert.equal(
      parseLlamaSlots([
        { id: 0, n_ctx: 4096 },
        { id: 1, n_ctx: 2048 },
      ])?.contextWindow,
      2048,
    );
    assert.equal(parseLlamaSlots({ error: "no" }), undefined);
  });

  it("Ollama: the loaded model's context_length from /api/ps (names match with or without :latest); else /api/show, capped at the default num_ctx", () => {
    assert.equal(parseOllamaPs(OLLAMA_PS, "qwen2.5-coder:7b")?.contextWindow, 8192);
    assert.equal(parseOllamaPs(OLLAMA_PS, "")?.contextWindow, 8192, "the only model loaded");
    assert.equal(parseOllamaPs({ models: [{ ...OLLAMA_PS.models[0], name: "llama3:latest", model: "llama3:latest" }] }, "LLAMA3")?.contextWindow, 8192);
    assert.equal(parseOllamaPs(OLLAMA_PS, "llama3"), undefined, "another model is not loaded");
    assert.equal(parseOllamaPs({ models: [] }, "llama3"), undefined);
    const shown = parseOllamaShow(OLLAMA_SHOW, "qwen2.5-coder:7b");
    assert.equal(shown?.contextWindow, OLLAMA_DEFAULT_NUM_CTX, "a model loaded without num_ctx gets Ollama's default, not its 32k");
    assert.equal(shown?.assumed, true);
    assert.equal(parseOllamaShow({ ...OLLAMA_SHOW, parameters: "num_ctx 16384\nstop x" }, "m")?.contextWindow, 16384);
    assert.equal(parseOllamaShow({ ...OLLAMA_SHOW, model_info: { "llama.context_length": 2048 } }, "m")?.contextWindow, 2048);
  });

  it("LM Studio: the loaded context length of the model asked for (or the loaded one); max_context_length only as an assumption", () => {
    assert.deepEqual(parseLmStudioModels(LM_STUDIO, ""), {
      server: "lmstudio",
      contextWindow: 4096,
      modelId: "qwen2.5-7b-instruct",
      source: "LM Studio loaded_context_length",
    });
    const notLoaded = parseLmStudioModels(LM_STUDIO, "llama-3.2-1b");
    assert.equal(notLoaded?.contextWindow, 131072);
    assert.equal(notLoaded?.assumed, true);
    assert.equal(parseLmStudioModels(LM_STUDIO, "text-embedding-nomic"), undefined);
  });

  it("vLLM: max_model_len from /v1/models; llama-server's meta.n_ctx; the served id", () => {
    assert.deepEqual(parseOpenAIModels(VLLM_MODELS, ""), {
      modelId: "Qwen/Qwen2.5-7B-Instruct",
      window: { server: "vllm", contextWindow: 16384, modelId: "Qwen/Qwen2.5-7B-Instruct", source: "vLLM /v1/models max_model_len" },
    });
    assert.deepEqual(parseOpenAIModels({ data: [{ id: "m.gguf", meta: { n_ctx: 4096, n_ctx_train: 2048 } }] }, "").window?.contextWindow, 4096);
    assert.deepEqual(parseOpenAIModels({ data: [{ id: "a" }, { id: "b" }] }, ""), { modelId: "a" });
    assert.deepEqual(parseOpenAIModels({ data: [{ id: "a" }] }, "zzz"), {});
  });

  it("answers count in order of trust, and a garbage answer is no answer", () => {
    assert.equal(windowFromAnswers({ props: LLAMA_PROPS, models: VLLM_MODELS }, "")?.server, "llama.cpp");
    assert.equal(windowFromAnswers({ ollamaPs: OLLAMA_PS, ollamaShow: OLLAMA_SHOW }, "qwen2.5-coder:7b")?.contextWindow, 8192);
    assert.equal(windowFromAnswers({ ollamaPs: { models: [] }, ollamaShow: OLLAMA_SHOW }, "qwen2.5-coder:7b")?.assumed, true);
    assert.equal(windowFromAnswers({ lmStudio: LM_STUDIO }, "")?.contextWindow, 4096);
    assert.equal(windowFromAnswers({ models: VLLM_MODELS }, "")?.contextWindow, 16384);
    assert.equal(windowFromAnswers({ props: { default_generation_settings: { n_ctx: -5 } }, models: { data: "x" } }, ""), undefined);
    assert.equal(windowFromAnswers({ props: { default_generation_settings: { n_ctx: 1.5 } } }, ""), undefined);
  });

  it("the token scale: the server's count of the calibration request per estimated token, never below 1, at most 4", () => {
    const estimate = calibrationEstimate();
    assert.equal(parseTokenScale({ tokens: new Array(estimate * 2).fill(1) }), 2);
    assert.equal(parseTokenScale({ tokens: new Array(Math.floor(estimate / 2)).fill(1) }), 1);
    assert.equal(parseTokenScale({ tokens: new Array(estimate * 50).fill(1) }), 4);
    assert.equal(parseTokenScale({ tokens: [] }), undefined);
    assert.equal(windowFromAnswers({ props: LLAMA_PROPS, tokenize: { tokens: new Array(estimate * 3).fill(1) } }, "")?.tokenScale, 3);
  });

  it("each server's own setting for its window is named", () => {
    assert.match(windowSettingFix("llama.cpp"), /-c 16384/);
    assert.match(windowSettingFix("ollama"), /OLLAMA_CONTEXT_LENGTH.*num_ctx/);
    assert.match(windowSettingFix("lmstudio"), /LM Studio.*context length/);
    assert.match(windowSettingFix("vllm"), /--max-model-len/);
    assert.match(windowSettingFix(undefined), /-c.*OLLAMA_CONTEXT_LENGTH.*--max-model-len/);
  });
});
