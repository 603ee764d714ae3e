import assert from "node:assert/strict";
import { test } from "node:test";

import { commandLabel, commandQuery, matchCommands, type SlashCommand } from "../src/slashCommands";

const list: SlashCommand[] = [
  { name: "review", description: "Review a file", hint: "<file>", source: ".agent-server/commands/review.md" },
  { name: "frontend:test", description: "Write UI tests", source: ".claude/commands/frontend/test.md" },
  { name: "mcp.gh.review_pr", description: "Review a PR", hint: "<number> [focus]", source: "mcp:gh" },
];

test("a slash command is completed only at the start of the prompt", () => {
  assert.deepEqual(commandQuery("/rev", 4), { query: "rev" });
  assert.deepEqual(commandQuery("/", 1), { query: "" });
  assert.deepEqual(commandQuery("/mcp.gh.re", 10), { query: "mcp.gh.re" });
  assert.equal(commandQuery("see /rev", 8), undefined);
  assert.equal(commandQuery("/review a.py", 12), undefined, "after the name, the arguments are free text");
});

test("names starting with the query come first; the label shows the hint and the description", () => {
  assert.deepEqual(
    matchCommands(list, "rev").map((c) => c.name),
    ["review", "mcp.gh.review_pr"],
  );
  assert.deepEqual(
    matchCommands(list, "").map((c) => c.name),
    ["review", "frontend:test", "mcp.gh.review_pr"],
  );
  assert.equal(commandLabel(list[0]!), "/review <file> — Review a file");
  assert.equal(commandLabel(list[1]!), "/frontend:test — Write UI tests");
});
