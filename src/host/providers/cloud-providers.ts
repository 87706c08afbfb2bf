// Every cloud provider of pi-ai that Pi Chat offers, as static facts the activation bundle can read
// without loading pi-ai: the id (pi-ai's, and the name of the key in VS Code's secret storage), the
// name, the environment variables pi-ai reads for its key, and the model used when none is chosen.
// test/unit/providers/every-provider-keys.test.ts holds this table to pi-ai's own list.

export interface CloudProviderInfo {
  readonly id: string;
  readonly label: string;
  /** Environment variables read when no key is stored, in order (pi-ai's names). */
  readonly env: readonly string[];
  /** The model when the setting is empty; "" = the first of pi-ai's catalog for it. */
  readonly defaultModel: string;
  /** Parts of the provider's URL it needs from the user's settings (provider-options.ts), asked when it is chosen. */
  readonly options?: readonly ProviderOptionId[];
}

/** A setting a provider needs beyond its key (provider-options.ts has each one's rule). */
export type ProviderOptionId = "azure.resourceName" | "azure.deployment" | "cloudflare.accountId" | "cloudflare.gatewayId";

/** Anthropic, OpenAI and Google first (the ones most users have), then the others by name. */
export const CLOUD_PROVIDERS = [
  { id: "anthropic", label: "Anthropic", env: ["ANTHROPIC_API_KEY"], defaultModel: "claude-sonnet-4-5" },
  { id: "openai", label: "OpenAI", env: ["OPENAI_API_KEY"], defaultModel: "gpt-4.1" },
  { id: "google", label: "Google Gemini", env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"], defaultModel: "gemini-2.5-flash" },
  { id: "ant-ling", label: "Ant Ling", env: ["ANT_LING_API_KEY"], defaultModel: "" },
  { id: "azure", label: "Azure OpenAI", env: ["AZURE_OPENAI_API_KEY"], defaultModel: "", options: ["azure.resourceName", "azure.deployment"] },
  { id: "baseten", label: "Baseten", env: ["BASETEN_API_KEY"], defaultModel: "" },
  { id: "cerebras", label: "Cerebras", env: ["CEREBRAS_API_KEY"], defaultModel: "" },
  {
    id: "cloudflare-ai-gateway",
    label: "Cloudflare AI Gateway",
    env: ["CLOUDFLARE_API_KEY"],
    defaultModel: "",
    options: ["cloudflare.accountId", "cloudflare.gatewayId"],
  },
  { id: "cloudflare-workers-ai", label: "Cloudflare Workers AI", env: ["CLOUDFLARE_API_KEY"], defaultModel: "", options: ["cloudflare.accountId"] },
  { id: "deepseek", label: "DeepSeek", env: ["DEEPSEEK_API_KEY"], defaultModel: "" },
  { id: "fireworks", label: "Fireworks", env: ["FIREWORKS_API_KEY"], defaultModel: "" },
  { id: "google-vertex", label: "Google Vertex AI", env: ["GOOGLE_CLOUD_API_KEY"], defaultModel: "" },
  { id: "groq", label: "Groq", env: ["GROQ_API_KEY"], defaultModel: "" },
  { id: "huggingface", label: "Hugging Face", env: ["HF_TOKEN"], defaultModel: "" },
  { id: "kimi-coding", label: "Kimi For Coding", env: ["KIMI_API_KEY"], defaultModel: "" },
  { id: "meta", label: "Meta", env: ["META_API_KEY"], defaultModel: "" },
  { id: "minimax", label: "MiniMax", env: ["MINIMAX_API_KEY"], defaultModel: "" },
  { id: "minimax-cn", label: "MiniMax CN", env: ["MINIMAX_CN_API_KEY"], defaultModel: "" },
  { id: "mistral", label: "Mistral", env: ["MISTRAL_API_KEY"], defaultModel: "" },
  { id: "moonshotai", label: "Moonshot AI", env: ["MOONSHOT_API_KEY"], defaultModel: "" },
  { id: "moonshotai-cn", label: "Moonshot AI CN", env: ["MOONSHOT_API_KEY"], defaultModel: "" },
  { id: "nvidia", label: "NVIDIA", env: ["NVIDIA_API_KEY"], defaultModel: "" },
  { id: "opencode", label: "OpenCode Zen", env: ["OPENCODE_API_KEY"], defaultModel: "" },
  { id: "opencode-go", label: "OpenCode Go", env: ["OPENCODE_API_KEY"], defaultModel: "" },
  { id: "openrouter", label: "OpenRouter", env: ["OPENROUTER_API_KEY"], defaultModel: "" },
  { id: "qwen-token-plan", label: "Qwen Token Plan Team", env: ["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"], defaultModel: "" },
  { id: "qwen-token-plan-cn", label: "Qwen Token Plan Team CN", env: ["QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"], defaultModel: "" },
  {
    id: "qwen-token-plan-individual",
    label: "Qwen Token Plan Individual",
    env: ["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
    defaultModel: "",
  },
  {
    id: "qwen-token-plan-individual-cn",
    label: "Qwen Token Plan Individual CN",
    env: ["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
    defaultModel: "",
  },
  { id: "together", label: "Together", env: ["TOGETHER_API_KEY"], defaultModel: "" },
  { id: "vercel-ai-gateway", label: "Vercel AI Gateway", env: ["AI_GATEWAY_API_KEY"], defaultModel: "" },
  { id: "xai", label: "xAI", env: ["XAI_API_KEY"], defaultModel: "" },
  { id: "xiaomi", label: "Xiaomi", env: ["XIAOMI_API_KEY"], defaultModel: "" },
  { id: "xiaomi-token-plan-ams", label: "Xiaomi Token Plan AMS", env: ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"], defaultModel: "" },
  { id: "xiaomi-token-plan-cn", label: "Xiaomi Token Plan CN", env: ["XIAOMI_TOKEN_PLAN_CN_API_KEY"], defaultModel: "" },
  { id: "xiaomi-token-plan-sgp", label: "Xiaomi Token Plan SGP", env: ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"], defaultModel: "" },
  { id: "zai", label: "Z.AI", env: ["ZAI_API_KEY"], defaultModel: "" },
  { id: "zai-coding-cn", label: "Z.AI Coding CN", env: ["ZAI_CODING_CN_API_KEY"], defaultModel: "" },
] as const satisfies readonly CloudProviderInfo[];

export type CloudProviderId = (typeof CLOUD_PROVIDERS)[number]["id"];

/** pi-ai's providers that are not offered, each with the reason (the picker's list is the others). */
export const NOT_OFFERED: Readonly<Record<string, string>> = {
  "amazon-bedrock": "needs the AWS SDK and its credential chain (profiles, IAM roles), which Pi Chat does not bundle",
  "github-copilot": "a GitHub sign-in; in VS Code, use Copilot's models through VS Code language models",
  "openai-codex": "a ChatGPT subscription sign-in only (no API key), which Pi Chat does not offer yet",
  radius: "a gateway whose model list comes from its sign-in, which Pi Chat does not offer yet",
  typesafe: "has no chat models (a classifier only)",
};
