// Icons from VS Code's own icon font (@vscode/codicons, bundled: out/codicon.ttf, loaded under
// the CSP's font-src), so Pi Chat looks like the rest of the workbench. They are text: they take
// the colour of their class or of the text around them, and are hidden from screen readers
// (every control that shows one has a name of its own).
import type { JSX } from "preact";

type IconProps = { class?: string };

function codicon(name: string): (props: IconProps) => JSX.Element {
  return (props: IconProps) => <span class={`icon codicon codicon-${name}${props.class ? ` ${props.class}` : ""}`} aria-hidden="true" />;
}

export const TrashIcon = codicon("trash");
export const SendIcon = codicon("send");
export const StopIcon = codicon("debug-stop");
export const CloseIcon = codicon("close");
export const CheckIcon = codicon("check");
export const ErrorIcon = codicon("error");
export const WarningIcon = codicon("warning");
export const InfoIcon = codicon("info");
export const FileIcon = codicon("file");
export const ToolIcon = codicon("tools");
export const ChevronDownIcon = codicon("chevron-down");
export const ArrowDownIcon = codicon("arrow-down");
export const DiffIcon = codicon("diff");
export const ShieldIcon = codicon("shield");
export const EditIcon = codicon("edit");
export const MarkdownIcon = codicon("markdown");
export const TerminalIcon = codicon("terminal");
export const ImageIcon = codicon("file-media");
export const CopyIcon = codicon("copy");

/** VS Code's spinning "loading" icon (still under prefers-reduced-motion). */
export const Spinner = (p: IconProps) => (
  <span class={`icon codicon codicon-loading codicon-modifier-spin spinner${p.class ? ` ${p.class}` : ""}`} aria-hidden="true" />
);
export const RetryIcon = codicon("refresh");
export const RestoreFilesIcon = codicon("discard");
export const SteerIcon = codicon("debug-step-into");
export const ChevronLeftIcon = codicon("chevron-left");
export const ChevronRightIcon = codicon("chevron-right");
export const ArrowUpIcon = codicon("arrow-up");
export const ChecklistIcon = codicon("checklist");
export const EyeIcon = codicon("eye");
export const EyeClosedIcon = codicon("eye-closed");
export const SwapIcon = codicon("arrow-swap");
export const FoldIcon = codicon("fold");
export const CommentIcon = codicon("comment");
