// The composer's host side that activation does not need: the `@` list and what mentions carry
// (mentions.ts, the path index and the fuzzy matcher), and the `/` list's prompt templates and
// skills (prompt-library.ts). Bundled apart as out/composer.js and required on the first `@`, `/`
// or request (composer-loader.ts, through lazy-bundle.ts), so the activation bundle stays within P5's budget.
import type { WorkspaceFileSystem } from "../../core/tools";
import { ACTION_COMMANDS, type SlashCommand } from "../../shared/mentions";
import { expandTemplate, parseArguments, splitSlashCommand } from "../../shared/prompt-templates";
import { loadPromptLibrary, skillMessage } from "./prompt-library";

export { WorkspaceMentions, type MentionAttachment } from "./mentions";
export { skillsStep } from "./prompt-library";

/** Where templates and skills are read: the tools' file system, each folder's path prefix, the workspace's trust. */
export interface LibraryPlace {
  readonly fs: WorkspaceFileSystem;
  readonly folders: readonly string[];
  readonly trusted: boolean;
  readonly log: (line: string) => void;
}

/** The `/` list: the chat's actions, then the templates and skills, read now (an edit counts at once). */
export async function commandList(place: LibraryPlace): Promise<{ commands: SlashCommand[]; notes: string[] }> {
  const library = await loadPromptLibrary(place.fs, place.folders, place.trusted);
  for (const note of library.notes) place.log(`prompts: ${note}`);
  const commands: SlashCommand[] = [
    ...ACTION_COMMANDS,
    ...library.templates.map(
      (t): SlashCommand => ({
        name: t.name,
        description: `${t.description} (${t.source})`,
        kind: "template",
        ...(t.argumentHint ? { argumentHint: t.argumentHint } : {}),
      }),
    ),
    ...library.skills.map((s): SlashCommand => ({ name: `skill:${s.name}`, description: `${s.description} (${s.source} skill)`, kind: "skill" })),
  ];
  return { commands, notes: library.notes };
}

/**
 * What `/name rest` stands for: a template's expansion (which the user reads in the box before it
 * is sent), or a skill's request (our fixed words around the skill); undefined when it names neither.
 */
export async function resolveSlash(
  place: LibraryPlace,
  name: string,
  rest: string,
): Promise<{ kind: "template"; name: string; text: string } | { kind: "skill"; text: string } | undefined> {
  const library = await loadPromptLibrary(place.fs, place.folders, place.trusted);
  if (name.startsWith("skill:")) {
    const skill = library.skills.find((s) => `skill:${s.name}` === name);
    return skill ? { kind: "skill", text: await skillMessage(skill, rest) } : undefined;
  }
  const template = library.templates.find((t) => t.name === name);
  return template ? { kind: "template", name, text: expandTemplate(template.body, parseArguments(rest)) } : undefined;
}

/** The composer's draft `/template args`, expanded for the user to read before sending; undefined when it is not a template. */
export async function expandDraft(place: LibraryPlace, draft: string): Promise<{ name: string; text: string } | undefined> {
  const slash = splitSlashCommand(draft);
  if (!slash || slash.name.startsWith("skill:") || ACTION_COMMANDS.some((c) => c.name === slash.name)) return undefined;
  const resolved = await resolveSlash(place, slash.name, slash.rest);
  return resolved?.kind === "template" ? { name: resolved.name, text: resolved.text } : undefined;
}
