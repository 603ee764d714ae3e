import assert from "node:assert/strict";
import { test } from "node:test";
import { statusLabel } from "../src/completionStatus";

test("the status item says off, on with the route, or why completion cannot run", () => {
  assert.match(statusLabel(false, undefined).text, /circle-slash/);
  const on = statusLabel(true, { enabled: true, supported: true, backend: "llamacpp at http://x, model q" });
  assert.match(on.text, /sparkle/);
  assert.match(on.tooltip, /llamacpp at http:\/\/x/);
  const cannot = statusLabel(true, { enabled: true, supported: false, reason: "'llama3' cannot fill in the middle" });
  assert.match(cannot.text, /warning/);
  assert.match(cannot.tooltip, /cannot fill in the middle/);
});
