// pi CLI sessions in Pi Chat (docs/pi-sessions.md): find, list, read and map one to open it; map a
// chat back and write it to hand it to pi.
export {
  MAX_PI_ENTRIES,
  MAX_PI_ENTRY_BYTES,
  MAX_PI_SESSION_BYTES,
  PI_SESSION_VERSION,
  type ParseProgress,
  parsePiSession,
  parsePiSessionInSlices,
  type PiEntry,
  type PiReadResult,
  type PiSessionFile,
  type PiSessionHeader,
} from "./reader";
export {
  importedChatTitle,
  importPiSession,
  PI_CHAT_CUSTOM_TYPE,
  type ImportOptions,
  type ImportedNode,
  type ImportedPiSession,
  type ImportOrigin,
} from "./import";
export {
  listPiSessions,
  piSessionFolderName,
  piSessionLocation,
  readPiSession,
  type PiEnv,
  type PiSessionSummary,
  type PiSessionsIO,
  type SlicedRead,
} from "./sessions";
export { exportPiSession, isPiSessionId, piSessionFileName, type ExportNode, type ExportOptions, type ExportResult, type ExportSource } from "./export";
export { savePiSession, type PiSessionWriter, type SaveOptions, type SaveResult } from "./save";
export { findOnPath, nodePiSessionsIO, nodePiSessionWriter } from "./node-io";
