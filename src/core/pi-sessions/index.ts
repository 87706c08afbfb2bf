// Opening pi CLI sessions in Pi Chat (docs/pi-sessions.md): find, list, read, map.
export { MAX_PI_SESSION_BYTES, PI_SESSION_VERSION, parsePiSession, type PiEntry, type PiReadResult, type PiSessionFile, type PiSessionHeader } from "./reader";
export { importPiSession, type ImportOptions, type ImportedNode, type ImportedPiSession, type ImportOrigin } from "./import";
export { listPiSessions, piSessionFolderName, piSessionLocation, readPiSession, type PiEnv, type PiSessionSummary, type PiSessionsIO } from "./sessions";
export { nodePiSessionsIO } from "./node-io";
