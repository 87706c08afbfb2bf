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

/**
 * The providers Pi Chat offers sign-in for, with pi-ai's own flow (auth/oauth), and the page the
 * browser opens on. Each one's credentials are kept in SecretStorage under SIGN_IN_SECRET_PREFIX +
 * its id. A loopback flow takes the browser's redirect on 127.0.0.1; a device-code flow shows a code
 * to enter on the provider's page. pi-ai's other flows are left out, each with the reason in
 * SIGN_IN_LEFT_OUT.
 */
export const SIGN_IN_PROVIDERS = [
  { id: "openai", label: "Sign in with ChatGPT", kind: "loopback", page: "https://auth.openai.com" },
  { id: "openrouter", label: "Sign in with OpenRouter", kind: "loopback", page: "https://openrouter.ai" },
  { id: "xai", label: "Sign in with SuperGrok or X Premium", kind: "deviceCode", page: "https://auth.x.ai" },
  { id: "kimi-coding", label: "Sign in with Kimi Code", kind: "deviceCode", page: "https://auth.kimi.com" },
  { id: "meta", label: "Sign in with Meta", kind: "deviceCode", page: "https://auth.meta.com" },
] as const satisfies readonly { id: CloudProviderId; label: string; kind: "loopback" | "deviceCode"; page: string }[];

export type SignInProviderId = (typeof SIGN_IN_PROVIDERS)[number]["id"];

export function isSignInProvider(value: unknown): value is SignInProviderId {
  return SIGN_IN_PROVIDERS.some((p) => p.id === value);
}

/** Where a provider's sign-in is kept in SecretStorage: this prefix and the provider's id. */
export const SIGN_IN_SECRET_PREFIX = "piChat.signIn.";

/** pi-ai's sign-in flows Pi Chat does not offer, each with the reason. */
export const SIGN_IN_LEFT_OUT: Readonly<Record<string, string>> = {
  anthropic: "Claude Pro/Max sign-in presents itself as Anthropic's own Claude Code app, and Anthropic allows subscription access only there; use an API key",
  "github-copilot": "Copilot's models reach Pi Chat through VS Code language models, with the GitHub sign-in VS Code already has",
  "openai-codex": "the Codex-only provider; Sign in with ChatGPT on OpenAI covers a ChatGPT subscription",
  radius: "a gateway whose address is configured per user, and whose model list comes from the sign-in",
};

/** pi-ai's providers that are not offered, each with the reason (the picker's list is the others). */
export const NOT_OFFERED: Readonly<Record<string, string>> = {
  "amazon-bedrock": "needs the AWS SDK and its credential chain (profiles, IAM roles), which Pi Chat does not bundle",
  "github-copilot": "a GitHub sign-in; in VS Code, use Copilot's models through VS Code language models",
  "openai-codex": "the Codex-only models of a ChatGPT subscription; Sign in with ChatGPT on OpenAI offers that subscription",
  radius: "a gateway whose address is configured per user and whose model list comes from its sign-in",
  typesafe: "has no chat models (a classifier only)",
};
