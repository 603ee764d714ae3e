import assert from "node:assert/strict";
import { test } from "node:test";

import { firstArgument, matchResources, resourceLabel, type McpResource } from "../src/mcpResources";
import { mentionQuery } from "../src/mentions";

const list: McpResource[] = [
  { mention: "docs:docs://readme", name: "readme", description: "The project's readme.", template: false, arguments: [] },
  { mention: "docs:weather://{city}/current", name: "weather", description: "", template: true, arguments: ["city"] },
];

test("resources match on the mention or the name; the label shows the description", () => {
  assert.deepEqual(matchResources(list, "READ").map((r) => r.name), ["readme"]);
  assert.deepEqual(matchResources(list, "docs:").map((r) => r.name), ["readme", "weather"]);
  assert.equal(resourceLabel(list[0]!), "@docs:docs://readme — The project's readme.");
  assert.equal(resourceLabel(list[1]!), "@docs:weather://{city}/current");
});

test("an @ query may hold a server prefix; a template's first argument is found for selection", () => {
  assert.deepEqual(mentionQuery("see @docs:rea", 13), { start: 4, query: "docs:rea" });
  const text = "x @docs:weather://{city}/current ";
  assert.deepEqual(firstArgument(text, 2), [18, 24]);
  assert.equal(firstArgument("@docs:docs://readme ", 0), undefined);
});
