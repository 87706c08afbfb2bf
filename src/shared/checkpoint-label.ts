// How a checkpoint is named to the user, the same in the chat view and in VS Code's pickers:
// the prompt's number on the path and its first words, as *Restore files to before message N* says.
export function checkpointLabel(checkpoint: { readonly number: number; readonly text: string }): string {
  return `message ${checkpoint.number} ("${checkpoint.text}")`;
}
