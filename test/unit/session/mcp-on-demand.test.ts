// MCP tools on demand through the real ChatService, session, agent and store (a scripted model, an
// in-memory MCP server of 12 tools): the first request declares tool_search and no MCP tool; a
// search loads one for the next request; its call passes the MCP approval; the chat reopened from
// disk declares it again, an edit before the search does not, and a few small tools are declared
// as before. Lean mode's first request declares only the essential tools.
import assert from "node:assert/strict";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { getCurrentSystemMessage, getCurrentTools, type Message } from "@earendil-works/pi-ai";
import { obj, str } from "@earendil-works/pi-schema";
import { MCP_SERVERS_SECTION, type McpApprovalRequest, type McpChatTools } from "../../../src/core/mcp/gate";
import { chatWorld } from "../../support/chat-world";
import { createScriptedModel, reply, type ScriptStep } from "../../support/scripted-model";

const FAKE_BRIEF = "Weather and other things.";
const FAKE_INSTRUCTIONS = `${FAKE_BRIEF} Give the city in English; temperatures are in Celsius.`;

/** The MCP servers' section of a request's system message. */
const mcpSection = (request: Message[]) => getCurrentSystemMessage(request)?.sections?.[MCP_SERVERS_SECTION] ?? "";
/** The texts of the tool_search results a request carries. */
const searchResults = (request: Message[]) =>
  request.flatMap((m) => (m.role === "toolResult" && m.toolName === "tool_search" ? m.content.map((c) => (c.type === "text" ? c.text : "")) : []));

function fakeServer(count: number): { mcp: McpChatTools; approvals: McpApprovalRequest[]; ran: string[] } {
  const approvals: McpApprovalRequest[] = [];
  const ran: string[] = [];
  const make = (local: string, description: string): AgentTool => ({
    name: `mcp__fake__${local}`,
    label: local,
    description: `${description} (MCP server "fake")`,
    parameters: obj({ city: str({ description: "A city." }) }),
    execute: async () => {
      ran.push(local);
      return { content: [{ type: "text", text: `${local} ran` }], details: {} };
    },
  });
  const tools = [
    make("weather", "Get the weather forecast for a city."),
    ...Array.from({ length: count - 1 }, (_, i) => make(`tool${i}`, `Does thing number ${i}.`)),
  ];
  const mcp: McpChatTools = {
    forRun: async () => ({
      tools,
      servers: [{ name: "fake", tools: tools.map((t) => t.name), summary: "", brief: FAKE_BRIEF, instructions: FAKE_INSTRUCTIONS }],
      notes: [],
    }),
    describe: (name) => (name.startsWith("mcp__fake__") ? { server: "fake", identity: "fake-id", tool: name.slice("mcp__fake__".length) } : undefined),
    allowed: { has: () => false, add: async () => undefined },
    approver: async (request) => {
      approvals.push(request);
      return { decision: "allow" };
    },
  };
  return { mcp, approvals, ran };
}

const names = (request: Message[]) => getCurrentTools(request).map((t) => t.name);
const mcpNames = (request: Message[]) => names(request).filter((n) => n.startsWith("mcp__"));

describe("MCP tools on demand through the session", () => {
  it("search, load, gated call; the reopened chat declares the loaded tool, an edit before the search does not", async () => {
    const model = createScriptedModel();
    const { mcp, approvals, ran } = fakeServer(12);
    const world = chatWorld({ resolveModel: async () => model.binding, mcp });
    try {
      const seen: string[][] = [];
      const record =
        (step: ScriptStep): ScriptStep =>
        (request) => {
          seen.push(mcpNames(request));
          if (seen.length === 1) assert.ok(names(request).includes("tool_search"), names(request).join(", "));
          return step(request);
        };
      model.push(
        record(reply.tool("tool_search", { query: "weather forecast" }, "s1")),
        record(reply.tool("mcp__fake__weather", { city: "Oslo" }, "c1")),
        record(reply.text("Sunny.")),
      );
      const session = world.service.newChat();
      await session.prompt("Weather in Oslo?");
      assert.deepEqual(seen[0], [], "no MCP tool declared before a search");
      assert.deepEqual(seen[1], ["mcp__fake__weather"], "the search's match is declared in the next request");
      assert.deepEqual(ran, ["weather"]);
      assert.deepEqual(
        approvals.map((a) => a.tool),
        ["weather"],
        "the loaded tool's call asked",
      );

      // Reopened from disk (a new service over the same files): the loaded tool is declared again.
      const reopened = await world.reopen().open(session.id);
      assert.ok(reopened.ok);
      let afterReopen: string[] = [];
      model.push((request) => {
        afterReopen = mcpNames(request);
        return reply.text("Still sunny.")(request);
      });
      await reopened.session.prompt("And tomorrow?");
      assert.deepEqual(afterReopen, ["mcp__fake__weather"]);

      // An edit of the first prompt branches from before the search: no MCP tool.
      let edited: string[] = ["unset"];
      model.push((request) => {
        edited = mcpNames(request);
        return reply.text("Which city?")(request);
      });
      const first = reopened.session.messages.findIndex((m) => m.role === "user");
      await reopened.session.editPrompt(first, "Weather?");
      assert.deepEqual(edited, []);
      assert.equal(model.pending(), 0);
    } finally {
      await world.cleanup();
    }
  });

  it("a server's full instructions: only its first line listed, the rest with the search that loads its tool, kept through a reload, again after an edit", async () => {
    const model = createScriptedModel();
    const { mcp } = fakeServer(12);
    const world = chatWorld({ resolveModel: async () => model.binding, mcp });
    try {
      model.push(reply.tool("tool_search", { query: "weather" }, "s1"), reply.tool("tool_search", { query: "thing number 3" }, "s2"), reply.text("Sunny."));
      const session = world.service.newChat();
      await session.prompt("Weather in Oslo?");
      const [first, afterSearch, afterSecond] = model.requests;
      assert.match(mcpSection(first!), /- fake: Weather and other things\.; tools: weather, tool0/);
      assert.doesNotMatch(mcpSection(first!), /Celsius/, "the listing has the first line only");
      assert.deepEqual(searchResults(afterSearch!).filter((t) => t.includes("Celsius")).length, 1, "the search that loads its first tool carries them");
      assert.match(searchResults(afterSearch!)[0]!, new RegExp(`Instructions of MCP server "fake": ${FAKE_INSTRUCTIONS}`));
      assert.doesNotMatch(searchResults(afterSecond!)[1]!, /Celsius/, "once: a second search of the same server does not repeat them");
      assert.doesNotMatch(mcpSection(afterSecond!), /Celsius/);

      // Reopened from disk: the result that carried them is on the path, so the listing stays short and a search does not repeat them.
      const reopened = await world.reopen().open(session.id);
      assert.ok(reopened.ok);
      model.push(reply.tool("tool_search", { query: "thing number 5" }, "s3"), reply.text("ok"));
      const before = model.requests.length;
      await reopened.session.prompt("And tomorrow?");
      const afterReopen = model.requests.slice(before);
      assert.doesNotMatch(mcpSection(afterReopen[0]!), /Celsius/);
      assert.equal(searchResults(afterReopen[1]!).filter((t) => t.includes("Celsius")).length, 1, "the kept result, not a new one");

      // An edit of the first prompt branches from before the search: the next search carries them again.
      model.push(reply.tool("tool_search", { query: "weather" }, "s4"), reply.text("Which city?"));
      const edited = model.requests.length;
      const firstPrompt = reopened.session.messages.findIndex((m) => m.role === "user");
      await reopened.session.editPrompt(firstPrompt, "Weather?");
      const branch = model.requests.slice(edited);
      assert.doesNotMatch(mcpSection(branch[0]!), /Celsius/);
      assert.equal(searchResults(branch[1]!).filter((t) => t.includes("Celsius")).length, 1);
      assert.equal(model.pending(), 0);
    } finally {
      await world.cleanup();
    }
  });

  it("a server whose tool is declared without a result that carried its instructions has them in the listing in full", async () => {
    const model = createScriptedModel();
    const { mcp } = fakeServer(12);
    let onDemand: "auto" | "never" = "never";
    const world = chatWorld({ resolveModel: async () => model.binding, mcp, mcpOnDemand: () => onDemand });
    try {
      model.push(reply.text("ok"));
      const session = world.service.newChat();
      await session.prompt("hi");
      assert.match(mcpSection(model.requests[0]!), /Celsius/, "every tool declared: the instructions in full, as before");
      onDemand = "auto";
      model.push(reply.tool("tool_search", { query: "thing number 3" }, "s1"), reply.text("ok"));
      await session.prompt("again");
      const [listed, searched] = model.requests.slice(1);
      assert.match(mcpSection(listed!), new RegExp(`- fake: ${FAKE_INSTRUCTIONS}; tools:`), "declared tools of the server: its instructions stay in full");
      assert.doesNotMatch(searchResults(searched!).join("\n"), /Celsius/, "and the search does not repeat them");
    } finally {
      await world.cleanup();
    }
  });

  it("a few small MCP tools are declared as before, with no tool_search", async () => {
    const model = createScriptedModel();
    const { mcp } = fakeServer(3);
    const world = chatWorld({ resolveModel: async () => model.binding, mcp });
    try {
      model.push(reply.text("ok"));
      await world.service.newChat().prompt("hi");
      const declared = names(model.requests[0]!);
      assert.deepEqual(
        declared.filter((n) => n.startsWith("mcp__")),
        ["mcp__fake__weather", "mcp__fake__tool0", "mcp__fake__tool1"],
      );
      assert.ok(!declared.includes("tool_search"));
    } finally {
      await world.cleanup();
    }
  });

  it("lean mode: the first request declares only read, edit, search (and tool_search for MCP)", async () => {
    const model = createScriptedModel();
    const { mcp } = fakeServer(3);
    const world = chatWorld({ resolveModel: async () => model.binding, mcp, leanMode: () => "on" });
    try {
      model.push(reply.text("ok"));
      await world.service.newChat().prompt("hi");
      // No commands in this world: run_command is not offered, so read, edit and search remain.
      assert.deepEqual(names(model.requests[0]!).sort(), ["edit_file", "read_file", "search", "tool_search"]);
    } finally {
      await world.cleanup();
    }
  });
});
