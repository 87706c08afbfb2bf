// The model ids an OpenAI-compatible server lists at GET {baseUrl}/models, for the picker and a run
// without a model id. Its failures are setup errors that say the way out.
import type { FixCommandId } from "../../shared/app-messages";
import { SELECT_MODEL_COMMAND, SET_API_KEY_COMMAND } from "./catalog";

/** Makes the RunSetupError a failed look-up throws. */
type Fail = (message: string, fix: string, command?: FixCommandId, more?: FixCommandId[]) => Error;

export async function fetchServerModelIds(baseUrl: string, apiKey: string, timeoutMs: number, fail: Fail): Promise<string[]> {
  const fix = `Check that the server is running at ${baseUrl}, or enter the model id with “${SELECT_MODEL_COMMAND}”.`;
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/models`, { headers: { Authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const code = errorCode(error);
    throw fail(`Could not reach the server at ${baseUrl}${code ? ` (${code})` : ""} to find its model.`, fix, "selectModel");
  }
  if (response.status === 401 || response.status === 403) {
    throw fail(`The server at ${baseUrl} refused the API key (${response.status}).`, `Run “${SET_API_KEY_COMMAND}” to store the server's key.`, "setApiKey");
  }
  if (!response.ok) throw fail(`The server at ${baseUrl} answered ${response.status} when asked for its models.`, fix, "selectModel");
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw fail(`The server at ${baseUrl} did not answer the model list with JSON.`, fix, "selectModel");
  }
  const data = typeof body === "object" && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return [];
  return data.flatMap((entry: unknown) => {
    const id = typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined;
    return typeof id === "string" && id ? [id] : [];
  });
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    if (current.name === "TimeoutError") return "timed out";
    current = current.cause;
  }
  return undefined;
}
