// One row of the model picker (src/host/models/chat-model-picker.ts), shared with the group of
// VS Code's own models (src/host/vscode-models/picker-items.ts).
import type * as vscode from "vscode";
import type { ProviderId } from "../providers/catalog";

export interface ModelItem extends vscode.QuickPickItem {
  /** setupProvider: a cloud provider without a key (asks for it, then lists its models); signIn: its sign-in, then its models. */
  action: "model" | "toggleDefault" | "typeName" | "otherServer" | "setupProvider" | "signIn" | "none";
  provider?: ProviderId;
  id?: string;
}
