// What a provider needs beyond its key, from the user's settings only: Azure's resource (and
// deployment), Cloudflare's account (and gateway) ids. These become part of the request's host or
// path, so each has one strict shape, checked when it is typed and again before any request: a value
// like "evil.example#" would otherwise move the key to another host. No VS Code here (the providers
// bundle and its unit tests use it); the picker asks through src/host/models/picker-groups.ts.
import { CLOUD_PROVIDERS, type CloudProviderInfo, type ProviderOptionId } from "./cloud-providers";

export interface ProviderOptionRule {
  /** What the input box asks. */
  title: string;
  /** An example, shown in the box. */
  example: string;
  /** The only shape accepted (anchored). */
  shape: RegExp;
  /** What the shape allows, in words, for a refusal. */
  shapeText: string;
  /** Whether a run needs it (optional ones have a default). */
  required: boolean;
}

export const PROVIDER_OPTION_RULES: Record<ProviderOptionId, ProviderOptionRule> = {
  "azure.resourceName": {
    title: "your Azure OpenAI resource's name (as in https://NAME.openai.azure.com)",
    example: "my-company-openai",
    shape: /^[a-z0-9][a-z0-9-]{0,62}$/,
    shapeText: "lowercase letters, digits and hyphens, at most 63",
    required: true,
  },
  "azure.deployment": {
    title: "the Azure deployment name (empty: the model's id)",
    example: "gpt-4o-prod",
    shape: /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    shapeText: "letters, digits, '.', '_' and '-', at most 64",
    required: false,
  },
  "cloudflare.accountId": {
    title: "your Cloudflare account id",
    example: "0123456789abcdef0123456789abcdef",
    shape: /^[0-9a-f]{32}$/,
    shapeText: "32 lowercase hexadecimal characters",
    required: true,
  },
  "cloudflare.gatewayId": {
    title: "your Cloudflare AI Gateway's id",
    example: "my-gateway",
    shape: /^[A-Za-z0-9_-]{1,64}$/,
    shapeText: "letters, digits, '_' and '-', at most 64",
    required: true,
  },
};

/** The settings a provider needs beyond its key ([] for most). */
export function providerOptions(provider: string): readonly ProviderOptionId[] {
  const info: CloudProviderInfo | undefined = CLOUD_PROVIDERS.find((p) => p.id === provider);
  return info?.options ?? [];
}

/** Why a typed value cannot be used, or undefined. */
export function optionProblem(option: ProviderOptionId, value: string): string | undefined {
  const rule = PROVIDER_OPTION_RULES[option];
  if (value === "") return rule.required ? `${rule.title} is needed` : undefined;
  return rule.shape.test(value) ? undefined : `it must be ${rule.shapeText}`;
}

/**
 * The variables pi-ai's adapter reads for the provider's URL, from the settings' values, given to
 * each request (so nothing of the extension host's own environment chooses the host). `baseUrl` is
 * the model's endpoint when the user allowed an override. Throws a message when a value is missing
 * or out of shape.
 */
export function providerEnv(
  provider: string,
  values: Readonly<Partial<Record<ProviderOptionId, string>>>,
  modelId: string,
  overrideUrl: string | undefined,
): Record<string, string> | undefined {
  const needed = providerOptions(provider);
  if (needed.length === 0) return undefined;
  for (const option of needed) {
    const problem = optionProblem(option, values[option] ?? "");
    if (problem) throw new Error(`${PROVIDER_OPTION_RULES[option].title}: ${problem}`);
  }
  const value = (option: ProviderOptionId) => values[option] ?? "";
  if (provider === "azure") {
    const deployment = value("azure.deployment");
    return {
      AZURE_OPENAI_BASE_URL: overrideUrl ?? `https://${value("azure.resourceName")}.openai.azure.com/openai/v1`,
      AZURE_OPENAI_DEPLOYMENT_NAME_MAP: deployment ? `${modelId}=${deployment}` : "",
    };
  }
  return {
    CLOUDFLARE_ACCOUNT_ID: value("cloudflare.accountId"),
    ...(needed.includes("cloudflare.gatewayId") ? { CLOUDFLARE_GATEWAY_ID: value("cloudflare.gatewayId") } : {}),
  };
}
