import assert from "node:assert/strict";
import { test } from "node:test";
import { diffLines, withContext } from "../webview/diff";
import { highlight } from "../webview/highlight";

test("diff of an edit shows removed then added lines between unchanged ones", () => {
  const lines = diffLines("a\nb\nc\nd\n", "a\nc\nX\nd\n");
  assert.deepEqual(
    lines.map((l) => l.op + l.text),
    [" a", "-b", " c", "+X", " d"],
  );
});

test("a new file is all additions; long unchanged runs fold", () => {
  assert.deepEqual(
    diffLines("", "x\ny").map((l) => l.op + l.text),
    ["+x", "+y"],
  );
  const old = Array.from({ length: 20 }, (_, i) => `l${i}`).join("\n");
  const changed = old.replace("l10", "L10");
  const shown = withContext(diffLines(old, changed), 2).map((l) => l.op + l.text);
  assert.deepEqual(shown, ["…8 unchanged lines", " l8", " l9", "-l10", "+L10", " l11", " l12", "…7 unchanged lines"]);
});

test("the highlighter escapes everything it does not colour", () => {
  const html = highlight('if (a < b) { return "<x>"; } // done', "typescript");
  assert.equal(
    html,
    '<span class="tok-k">if</span> (a &lt; b) { <span class="tok-k">return</span> <span class="tok-s">&quot;&lt;x&gt;&quot;</span>; } <span class="tok-c">// done</span>',
  );
  assert.equal(highlight("<b>", "text"), "&lt;b&gt;");
});
