// Where a command may run: a folder of the workspace, named the way every tool names paths —
// relative to the one folder, or `folderName/relative/path` with several (multi-root.ts). The
// folder is checked like every path (inside its workspace folder, symlinks resolved) and must be
// on disk. With several folders there is no default: the model names one, and the user's `!cmd`
// gets one from the host (the active editor's folder, or the user's pick).
import { join } from "node:path";
import { resolveToolPath } from "../tools/file-access";
import { WorkspaceToolError } from "../tools/tool-error";
import type { WorkspaceFileSystem } from "../tools/workspace-fs";

export interface CommandFolders {
  /** More than one folder: a command's cwd starts with the folder's name, and there is no default. */
  readonly multiRoot: boolean;
  /** The folder names (multi-root), for messages that say what to give. */
  readonly names: readonly string[];
  /** The one folder's absolute path: absolute paths inside it are accepted, as by the file tools. */
  readonly root: string | undefined;
  /** The absolute path on disk of a resolved tool path; undefined when it is not in a folder on disk. */
  absolute(toolPath: string): string | undefined;
}

/** One folder on disk: paths are relative to it, "." is the folder itself. */
export function singleFolder(root: string): CommandFolders {
  return {
    multiRoot: false,
    names: [],
    root,
    absolute: (toolPath) => (toolPath === "." ? root : join(root, ...toolPath.split("/"))),
  };
}

/** Several folders (those on disk, by their unique tool names); "." is no folder. */
export function severalFolders(folders: readonly { name: string; path: string }[]): CommandFolders {
  const byName = new Map(folders.map((f) => [f.name, f.path]));
  return {
    multiRoot: true,
    names: folders.map((f) => f.name),
    root: undefined,
    absolute(toolPath) {
      const [name, ...rest] = toolPath.split("/");
      const base = name === undefined ? undefined : byName.get(name);
      return base === undefined ? undefined : rest.length === 0 ? base : join(base, ...rest);
    },
  };
}

/** The command's folder: as the card shows it (a tool path) and absolute (to run in). */
export async function resolveCommandFolder(
  fs: WorkspaceFileSystem,
  folders: CommandFolders,
  cwd: string | undefined,
): Promise<{ relative: string; absolute: string }> {
  const given = cwd === undefined || cwd.trim() === "" ? undefined : cwd;
  if (given === undefined && folders.multiRoot) {
    throw new WorkspaceToolError(
      "invalid_path",
      `This workspace has several folders (${folders.names.join(", ")}): give cwd, starting with the folder's name (e.g. "${folders.names[0] ?? "app"}").`,
    );
  }
  const { realPath } = await resolveToolPath(fs, folders.root, given ?? ".");
  const info = await fs.stat(realPath);
  if (info === undefined) throw new WorkspaceToolError("not_found", `Folder not found: ${given}`);
  if (info.type !== "directory") throw new WorkspaceToolError("not_a_file", `${given} is not a folder; give the folder to run the command in.`);
  const absolute = folders.absolute(realPath);
  if (absolute === undefined) {
    throw new WorkspaceToolError(
      "invalid_path",
      realPath === "."
        ? `Commands run in one folder of the workspace: give cwd, starting with the folder's name (${folders.names.join(", ")}).`
        : `${given} is not in a workspace folder on this machine's disk, so no command can run there.`,
    );
  }
  return { relative: realPath, absolute };
}
