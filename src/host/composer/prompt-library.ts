// The prompt templates and skills the pi CLI reads, read by Pi Chat from the same places:
// templates from `.pi/prompts/*.md` and `.github/prompts/*.prompt.md` of each workspace folder and
// `~/.pi/agent/prompts/*.md`; skills (a folder with SKILL.md) from `.pi/skills/`, `.agents/skills/`
// and `~/.pi/agent/skills/`. The user folder is `$PI_CODING_AGENT_DIR` when set, as in pi.
// Workspace ones are read only in a trusted workspace, through the tools' file system (a link out
// of the folder is not followed); every file is size-capped, and what was skipped is said.
import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { withSystemSection } from "../../core/context/project-instructions";
import { SKILLS_SECTION } from "../../core/context/lean-mode";
import type { RequestContextStep } from "../../core/session/types";
import { checkRealPath, type WorkspaceFileSystem } from "../../core/tools";
import { MAX_PROMPT_FILE_BYTES, parseSkill, parseTemplate, type PromptTemplate, type Skill, templateName } from "../../shared/prompt-templates";

/** At most this many templates or skills per folder: a list, not a dump. */
const MAX_PER_FOLDER = 200;
export { SKILLS_SECTION };

export interface PromptLibrary {
  templates: PromptTemplate[];
  skills: Skill[];
  /** What was skipped and why, in words (shown under the `/` list and logged). */
  notes: string[];
}

export function userAgentDir(): string {
  return process.env.PI_CODING_AGENT_DIR?.trim() || path.join(homedir(), ".pi", "agent");
}

interface Source {
  /** `link`: a symbolic link (listed as a folder too; what it leads to is checked when read). */
  list(dir: string): Promise<{ name: string; dir: boolean; link?: boolean }[]>;
  /** The text, or why not (too big, a link out, unreadable). */
  read(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }>;
}

function workspaceSource(fs: WorkspaceFileSystem): Source {
  return {
    async list(dir) {
      try {
        // A link counts as a folder here: reading through it is checked (and refused when it leads out).
        return (await fs.readDirectory(dir)).map((e) => ({ name: e.name, dir: e.type === "directory" || e.type === "symlink", link: e.type === "symlink" }));
      } catch {
        return [];
      }
    },
    async read(file) {
      const real = await checkRealPath(fs, file);
      if (!real.ok) return { ok: false, reason: "it leads outside the workspace through a symbolic link" };
      const info = await fs.stat(real.path);
      if (info?.type !== "file") return { ok: false, reason: "it is not a file" };
      if (info.size > MAX_PROMPT_FILE_BYTES)
        return { ok: false, reason: `it is ${Math.round(info.size / 1024)} KB, over the ${MAX_PROMPT_FILE_BYTES / 1024} KB cap` };
      try {
        return { ok: true, text: new TextDecoder().decode(await fs.readFile(real.path)) };
      } catch (error) {
        return { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}

/** The user's own folder: their files, links followed (as pi does), sizes capped. */
const nodeSource: Source = {
  async list(dir) {
    try {
      const entries = await readdir(dir, { withFileTypes: true });
      const out: { name: string; dir: boolean }[] = [];
      for (const e of entries) {
        let isDir = e.isDirectory();
        if (e.isSymbolicLink()) isDir = (await stat(path.join(dir, e.name)).catch(() => undefined))?.isDirectory() ?? false;
        out.push({ name: e.name, dir: isDir });
      }
      return out;
    } catch {
      return [];
    }
  },
  async read(file) {
    try {
      const info = await stat(file);
      if (!info.isFile()) return { ok: false, reason: "it is not a file" };
      if (info.size > MAX_PROMPT_FILE_BYTES)
        return { ok: false, reason: `it is ${Math.round(info.size / 1024)} KB, over the ${MAX_PROMPT_FILE_BYTES / 1024} KB cap` };
      return { ok: true, text: await readFile(file, "utf8") };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  },
};

async function readTemplates(
  source: Source,
  dir: string,
  github: boolean,
  origin: PromptTemplate["source"],
  shown: (file: string) => string,
  notes: string[],
): Promise<PromptTemplate[]> {
  const out: PromptTemplate[] = [];
  const entries = (await source.list(dir)).filter((e) => !e.dir || e.link === true).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const name = templateName(entry.name, github);
    if (name === undefined) continue;
    if (out.length >= MAX_PER_FOLDER) {
      notes.push(`${shown(dir)}: only the first ${MAX_PER_FOLDER} templates are listed.`);
      break;
    }
    const file = `${dir}/${entry.name}`;
    const read = await source.read(file);
    if (!read.ok) {
      notes.push(`${shown(file)} was skipped: ${read.reason}.`);
      continue;
    }
    const template = parseTemplate(name, read.text, origin, shown(file));
    if (template.problem) notes.push(`${shown(file)}: ${template.problem}; its whole text is the template.`);
    out.push(template);
  }
  return out;
}

async function readSkills(
  source: Source,
  dir: string,
  origin: Skill["source"],
  shown: (file: string) => string,
  modelPath: ((file: string) => string) | undefined,
  notes: string[],
): Promise<Skill[]> {
  const out: Skill[] = [];
  const folders = (await source.list(dir)).filter((e) => e.dir).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const folder of folders.slice(0, MAX_PER_FOLDER)) {
    const file = `${dir}/${folder.name}/SKILL.md`;
    const read = await source.read(file);
    if (!read.ok) {
      // A folder without SKILL.md is not a skill; anything else is worth saying.
      if (!/ENOENT|not found|does not exist|no such/i.test(read.reason)) notes.push(`${shown(file)} was skipped: ${read.reason}.`);
      continue;
    }
    const parsed = parseSkill(folder.name, read.text, { source: origin, file: shown(file), ...(modelPath ? { path: modelPath(file) } : {}) });
    if (parsed.ok) out.push(parsed.skill);
    else notes.push(`${shown(file)} is not a skill: ${parsed.reason}.`);
  }
  return out;
}

/**
 * Reads the library now (the `/` list asks each time it opens; a send reads again, so an edit
 * counts at once). `folders`: the tools' path prefix of each workspace folder ("" with one folder).
 */
export async function loadPromptLibrary(fs: WorkspaceFileSystem, folders: readonly string[], trusted: boolean): Promise<PromptLibrary> {
  const notes: string[] = [];
  const templates: PromptTemplate[] = [];
  const skills: Skill[] = [];
  const ws = workspaceSource(fs);
  if (trusted) {
    for (const prefix of folders) {
      const at = (p: string) => (prefix === "" ? p : `${prefix}/${p}`);
      templates.push(...(await readTemplates(ws, at(".pi/prompts"), false, "workspace", (f) => f, notes)));
      templates.push(...(await readTemplates(ws, at(".github/prompts"), true, "workspace", (f) => f, notes)));
      for (const dir of [".pi/skills", ".agents/skills"])
        skills.push(
          ...(await readSkills(
            ws,
            at(dir),
            "workspace",
            (f) => f,
            (f) => f,
            notes,
          )),
        );
    }
  } else {
    notes.push("The workspace is not trusted: its own templates and skills are not read.");
  }
  const agentDir = userAgentDir();
  const home = homedir();
  const shownUser = (f: string) => (f.startsWith(home) ? `~${f.slice(home.length)}` : f);
  const userTemplates = await readTemplates(nodeSource, path.join(agentDir, "prompts"), false, "user", shownUser, notes);
  const userSkills = await readSkills(nodeSource, path.join(agentDir, "skills"), "user", shownUser, undefined, notes);
  return {
    templates: [...withoutShadows(templates, userTemplates, "template", notes), ...userTemplates],
    skills: [...withoutShadows(skills, userSkills, "skill", notes), ...userSkills],
    notes,
  };
}

/**
 * The workspace's templates or skills less those named like one of the user's own: a repository
 * cannot replace the user's `/review` with its own text (the skipped file is said). Among the
 * workspace's own, the first of a name wins, as a later one could not be typed.
 */
function withoutShadows<T extends { name: string; file: string }>(workspace: readonly T[], user: readonly T[], what: string, notes: string[]): T[] {
  const taken = new Set(user.map((u) => u.name));
  const kept: T[] = [];
  for (const item of workspace) {
    if (taken.has(item.name)) {
      const own = user.find((u) => u.name === item.name)!;
      notes.push(`${item.file} is not used: your own ${what} ${own.file} has the name "${item.name}".`);
      continue;
    }
    taken.add(item.name);
    kept.push(item);
  }
  return kept;
}

/** The system prompt's list of skills: name and description only; the model reads a skill's file when it needs it. */
export function skillsSection(skills: readonly Skill[]): string | undefined {
  if (skills.length === 0) return undefined;
  const rows = skills.map(
    (s) =>
      `- ${s.name}: ${s.description}${s.path ? ` (read ${s.path} with read_file)` : ` (a user skill outside the workspace: the user loads it with /skill:${s.name})`}`,
  );
  return [
    "Skills: instructions for particular tasks, listed by name and description. When a task matches a skill, read its SKILL.md before you start and follow it.",
    ...rows,
  ].join("\n");
}

/** The `/skill:name args` message: the skill's instructions, then what the user asked. */
export async function skillMessage(skill: Skill, args: string): Promise<string> {
  if (skill.path !== undefined) {
    return `Use the skill "${skill.name}": read its instructions in ${skill.path} with read_file first, and follow them.${args ? `\n\n${args}` : ""}`;
  }
  // A user skill is outside the workspace, where read_file cannot go: its text goes with the message.
  const file = skill.file.startsWith("~") ? path.join(homedir(), skill.file.slice(1)) : skill.file;
  const read = await nodeSource.read(file);
  const body = read.ok ? read.text : `(its SKILL.md could not be read: ${read.reason})`;
  return `Use the skill "${skill.name}" (${skill.file}), whose instructions follow.\n<skill name="${skill.name}">\n${body}\n</skill>${args ? `\n\n${args}` : ""}`;
}

/** Adds the skills' list to each request's system prompt (read at each request, so a new skill counts at once). */
export function skillsStep(fs: WorkspaceFileSystem, folders: () => readonly string[], log: (line: string) => void): RequestContextStep {
  return async (messages) => {
    const library = await loadPromptLibrary(fs, folders(), vscode.workspace.isTrusted);
    for (const note of library.notes) log(`skills: ${note}`);
    return withSystemSection(messages, SKILLS_SECTION, skillsSection(library.skills));
  };
}
