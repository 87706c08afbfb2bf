// VS Code's language model API as Pi Chat uses it, on every VS Code we support: our engines say
// ^1.100 and @types/vscode is 1.100's, so what later versions added (a model's capabilities, image
// parts) is declared here, minimal and typed, and used only after a runtime check. Also the list
// of models the picker, the header and the meter read (light: no pi-ai here, it loads at activation).
import * as vscode from "vscode";

/** What VS Code 1.104+ says of a model (LanguageModelChat.capabilities); absent on 1.100. */
export interface LanguageModelCapabilities {
  readonly supportsImageToText?: boolean;
  readonly supportsToolCalling?: boolean | number;
}

/** LanguageModelChat as 1.104+ has it. */
export type LanguageModelChatLatest = vscode.LanguageModelChat & { readonly capabilities?: LanguageModelCapabilities };

/** An image part of a request (vscode.LanguageModelDataPart, 1.104+). */
export interface LanguageModelDataPartStatic {
  image(data: Uint8Array, mimeType: string): unknown;
}

/** vscode.LanguageModelDataPart where this VS Code has it. */
export function dataPartClass(): LanguageModelDataPartStatic | undefined {
  const found: unknown = (vscode as unknown as Record<string, unknown>).LanguageModelDataPart;
  return typeof found === "function" && typeof (found as { image?: unknown }).image === "function"
    ? (found as unknown as LanguageModelDataPartStatic)
    : undefined;
}

/** Whether this VS Code lets extensions use its language models at all. */
export function lmAvailable(): boolean {
  return typeof vscode.lm?.selectChatModels === "function";
}

/**
 * Whether another extension can register models here (the Language Model Chat Provider API,
 * final in 1.104): then "no models" has a way out (install or sign in to one).
 */
export function providerApiAvailable(): boolean {
  return typeof (vscode.lm as unknown as { registerLanguageModelChatProvider?: unknown } | undefined)?.registerLanguageModelChatProvider === "function";
}

/** One model VS Code offers, as the picker, the header and the meter see it. */
export interface VscodeModelInfo {
  /** "vendor/id": the chat's model id (its transcript line names it). */
  key: string;
  vendor: string;
  id: string;
  name: string;
  family: string;
  maxInputTokens: number;
  /** undefined where VS Code does not say (1.100). */
  imageInput: boolean | undefined;
  toolCalling: boolean | undefined;
}

/** The key a chat stores for a model: its vendor and id, so two vendors' same id stay apart. */
export function modelKey(model: { vendor: string; id: string }): string {
  return `${model.vendor}/${model.id}`;
}

/** The vendor and id of a stored key ("" = VS Code's first model). */
export function parseModelKey(key: string): { vendor: string; id: string } | undefined {
  const slash = key.indexOf("/");
  return slash > 0 ? { vendor: key.slice(0, slash), id: key.slice(slash + 1) } : undefined;
}

export function describeModel(model: LanguageModelChatLatest): VscodeModelInfo {
  const toolCalling = model.capabilities?.supportsToolCalling;
  return {
    key: modelKey(model),
    vendor: model.vendor,
    id: model.id,
    name: model.name,
    family: model.family,
    maxInputTokens: model.maxInputTokens,
    imageInput: model.capabilities?.supportsImageToText,
    toolCalling: toolCalling === undefined ? undefined : toolCalling !== false && toolCalling !== 0,
  };
}

let lastListed: readonly VscodeModelInfo[] = [];
const listedEmitter = new vscode.EventEmitter<void>();
/** The models were listed again: the header's name, the meter and the empty chat may change. */
export const onDidListVscodeModels = listedEmitter.event;

/** Every model VS Code offers now ([] where it has none or no API); remembered for the header and the meter. */
export async function listVscodeModels(): Promise<readonly VscodeModelInfo[]> {
  if (!lmAvailable()) return [];
  const models = await vscode.lm.selectChatModels();
  lastListed = models.map((m) => describeModel(m as LanguageModelChatLatest));
  listedEmitter.fire();
  return lastListed;
}

/** The models of the last listing (the view's status never waits for VS Code). */
export function knownVscodeModels(): readonly VscodeModelInfo[] {
  return lastListed;
}

/** A known model by the chat's key ("" = the first one). */
export function knownVscodeModel(key: string): VscodeModelInfo | undefined {
  return key ? lastListed.find((m) => m.key === key) : lastListed[0];
}

/** The meter's model before a run binds one: the window VS Code says (maxInputTokens), no price. */
export function vscodeModelForMeter(model: VscodeModelInfo): {
  contextWindow: number;
  maxTokens: number;
  cost: { input: 0; output: 0; cacheRead: 0; cacheWrite: 0 };
} {
  return { contextWindow: model.maxInputTokens, maxTokens: assumedMaxOutput(model.maxInputTokens), cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };
}

/** VS Code does not tell a consumer a model's output cap: a share of its window, for the meter's reserve. */
export function assumedMaxOutput(maxInputTokens: number): number {
  return Math.min(8192, Math.max(1, Math.floor(maxInputTokens / 4)));
}
