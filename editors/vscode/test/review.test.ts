import assert from "node:assert/strict";
import { test } from "node:test";
import { lineDiff, reviewAnswer, splitLines } from "../src/reviewHunks";

const BASE = "def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n";
const PROPOSED = "def total(xs):\n    return sum(xs) + 0\n\n\ndef mean(xs):\n    return total(xs) / max(1, len(xs))\n";
const HUNKS = [
  { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1 },
  { oldStart: 5, oldLines: 1, newStart: 5, newLines: 1 },
];

test("a proposal allowed as it is carries no review", () => {
  assert.equal(reviewAnswer(BASE, PROPOSED, PROPOSED, HUNKS), undefined);
});

test("a hunk put back as it was is reported rejected; an edited one is not", () => {
  const [first] = lineDiff(splitLines(BASE), splitLines(PROPOSED));
  assert.deepEqual(first, { aStart: 1, aCount: 1, bStart: 1, bCount: 1 });
  const rejected = BASE.replace("/ len(xs)", "/ max(1, len(xs))"); // the first hunk reverted in the diff editor
  const edited = rejected.replace("max(1, len(xs))", "(len(xs) or 1)");
  assert.deepEqual(reviewAnswer(BASE, PROPOSED, edited, HUNKS), { content: edited, rejectedHunks: [0] });
});

test("insertions and deletions are hunks too", () => {
  assert.deepEqual(lineDiff(["a", "b", "c"], ["a", "x", "b"]), [
    { aStart: 1, aCount: 0, bStart: 1, bCount: 1 },
    { aStart: 2, aCount: 1, bStart: 3, bCount: 0 },
  ]);
});
