// One row of the model picker (src/host/models/chat-model-picker.ts), shared with the group of
// VS Code's own models (src/host/vscode-models/picker-items.ts).
import type * as vscode from "vscode";
import type { ProviderId } from "../providers/catalog";

export interface ModelItem extends vscode.QuickPickItem {
  action: "model" | "toggleDefault" | "typeName" | "otherServer" | "none";
  provider?: ProviderId;
  id?: string;
}
