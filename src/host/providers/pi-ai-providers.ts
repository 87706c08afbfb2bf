// pi-ai's provider factories for every cloud provider Pi Chat offers (cloud-providers.ts lists
// them without loading pi-ai). Each import brings that provider's model catalog and its adapter;
// part of the providers bundle, loaded on the first prompt. Only pi-ai modules are imported here.
import { anthropicProvider } from "@earendil-works/pi-ai/providers/anthropic";
import { openaiProvider } from "@earendil-works/pi-ai/providers/openai";
import { googleProvider } from "@earendil-works/pi-ai/providers/google";
import { antLingProvider } from "@earendil-works/pi-ai/providers/ant-ling";
import { azureProvider } from "@earendil-works/pi-ai/providers/azure";
import { cloudflareAIGatewayProvider } from "@earendil-works/pi-ai/providers/cloudflare-ai-gateway";
import { cloudflareWorkersAIProvider } from "@earendil-works/pi-ai/providers/cloudflare-workers-ai";
import { googleVertexProvider } from "@earendil-works/pi-ai/providers/google-vertex";
import { basetenProvider } from "@earendil-works/pi-ai/providers/baseten";
import { cerebrasProvider } from "@earendil-works/pi-ai/providers/cerebras";
import { deepseekProvider } from "@earendil-works/pi-ai/providers/deepseek";
import { fireworksProvider } from "@earendil-works/pi-ai/providers/fireworks";
import { groqProvider } from "@earendil-works/pi-ai/providers/groq";
import { huggingfaceProvider } from "@earendil-works/pi-ai/providers/huggingface";
import { kimiCodingProvider } from "@earendil-works/pi-ai/providers/kimi-coding";
import { metaProvider } from "@earendil-works/pi-ai/providers/meta";
import { minimaxProvider } from "@earendil-works/pi-ai/providers/minimax";
import { minimaxCnProvider } from "@earendil-works/pi-ai/providers/minimax-cn";
import { mistralProvider } from "@earendil-works/pi-ai/providers/mistral";
import { moonshotaiProvider } from "@earendil-works/pi-ai/providers/moonshotai";
import { moonshotaiCnProvider } from "@earendil-works/pi-ai/providers/moonshotai-cn";
import { nvidiaProvider } from "@earendil-works/pi-ai/providers/nvidia";
import { opencodeProvider } from "@earendil-works/pi-ai/providers/opencode";
import { opencodeGoProvider } from "@earendil-works/pi-ai/providers/opencode-go";
import { openrouterProvider } from "@earendil-works/pi-ai/providers/openrouter";
import { qwenTokenPlanProvider } from "@earendil-works/pi-ai/providers/qwen-token-plan";
import { qwenTokenPlanCnProvider } from "@earendil-works/pi-ai/providers/qwen-token-plan-cn";
import { qwenTokenPlanIndividualProvider } from "@earendil-works/pi-ai/providers/qwen-token-plan-individual";
import { qwenTokenPlanIndividualCnProvider } from "@earendil-works/pi-ai/providers/qwen-token-plan-individual-cn";
import { togetherProvider } from "@earendil-works/pi-ai/providers/together";
import { vercelAIGatewayProvider } from "@earendil-works/pi-ai/providers/vercel-ai-gateway";
import { xaiProvider } from "@earendil-works/pi-ai/providers/xai";
import { xiaomiProvider } from "@earendil-works/pi-ai/providers/xiaomi";
import { xiaomiTokenPlanAmsProvider } from "@earendil-works/pi-ai/providers/xiaomi-token-plan-ams";
import { xiaomiTokenPlanCnProvider } from "@earendil-works/pi-ai/providers/xiaomi-token-plan-cn";
import { xiaomiTokenPlanSgpProvider } from "@earendil-works/pi-ai/providers/xiaomi-token-plan-sgp";
import { zaiProvider } from "@earendil-works/pi-ai/providers/zai";
import { zaiCodingCnProvider } from "@earendil-works/pi-ai/providers/zai-coding-cn";
import type { Provider } from "@earendil-works/pi-ai/models";
import type { CloudProviderId } from "./cloud-providers";

/** The factory of each provider, by the id its keys are stored under. */
export const CLOUD_FACTORIES: Record<CloudProviderId, () => Provider> = {
  anthropic: anthropicProvider,
  openai: openaiProvider,
  google: googleProvider,
  "ant-ling": antLingProvider,
  azure: azureProvider,
  "cloudflare-ai-gateway": cloudflareAIGatewayProvider,
  "cloudflare-workers-ai": cloudflareWorkersAIProvider,
  "google-vertex": googleVertexProvider,
  baseten: basetenProvider,
  cerebras: cerebrasProvider,
  deepseek: deepseekProvider,
  fireworks: fireworksProvider,
  groq: groqProvider,
  huggingface: huggingfaceProvider,
  "kimi-coding": kimiCodingProvider,
  meta: metaProvider,
  minimax: minimaxProvider,
  "minimax-cn": minimaxCnProvider,
  mistral: mistralProvider,
  moonshotai: moonshotaiProvider,
  "moonshotai-cn": moonshotaiCnProvider,
  nvidia: nvidiaProvider,
  opencode: opencodeProvider,
  "opencode-go": opencodeGoProvider,
  openrouter: openrouterProvider,
  "qwen-token-plan": qwenTokenPlanProvider,
  "qwen-token-plan-cn": qwenTokenPlanCnProvider,
  "qwen-token-plan-individual": qwenTokenPlanIndividualProvider,
  "qwen-token-plan-individual-cn": qwenTokenPlanIndividualCnProvider,
  together: togetherProvider,
  "vercel-ai-gateway": vercelAIGatewayProvider,
  xai: xaiProvider,
  xiaomi: xiaomiProvider,
  "xiaomi-token-plan-ams": xiaomiTokenPlanAmsProvider,
  "xiaomi-token-plan-cn": xiaomiTokenPlanCnProvider,
  "xiaomi-token-plan-sgp": xiaomiTokenPlanSgpProvider,
  zai: zaiProvider,
  "zai-coding-cn": zaiCodingCnProvider,
};
