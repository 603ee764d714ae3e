/** The hunks of a reviewed change (no `vscode` import, unit-tested): where the text now and the user's version
 * differ, and which of the server's hunks the user left as they were (rejected). */

/** One hunk as the server sends it in `_meta.review.hunks`: 0-based lines of the text now and of the proposal. */
export interface ServerHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

/** A difference between two line lists: 0-based start and count on each side (count 0: an insertion before start). */
export interface Change {
  aStart: number;
  aCount: number;
  bStart: number;
  bCount: number;
}

/** The review part of a permission answer (`_meta.review`). */
export interface ReviewAnswer {
  content: string;
  rejectedHunks: number[];
}

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Line differences (longest common subsequence inside the common prefix and suffix). */
export function lineDiff(a: string[], b: string[]): Change[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n * m > 4_000_000) return n + m ? [{ aStart: head, aCount: n, bStart: head, bCount: m }] : [];
  // at(i, j): the common length of a[head+i..] and b[head+j..]
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  const at = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * width + j] = a[head + i] === b[head + j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const changes: Change[] = [];
  let i = 0;
  let j = 0;
  let open: Change | undefined;
  const close = () => {
    if (open) changes.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { aStart: head + i, aCount: 0, bStart: head + j, bCount: 0 };
    if (j < m && (i === n || at(i, j + 1) >= at(i + 1, j))) {
      open.bCount++;
      j++;
    } else {
      open.aCount++;
      i++;
    }
  }
  close();
  return changes;
}

/** Whether a difference of the text now reaches the server's hunk (an insertion counts at its place). */
function touches(hunk: ServerHunk, c: Change): boolean {
  const [s, e] = [hunk.oldStart, hunk.oldStart + hunk.oldLines];
  const [cs, ce] = [c.aStart, c.aStart + c.aCount];
  if (hunk.oldLines > 0 && c.aCount > 0) return cs < e && ce > s;
  return cs <= e && ce >= s;
}

/** What the user changed in the proposal before allowing it; undefined when it is allowed as proposed. */
export function reviewAnswer(base: string, proposed: string, now: string, hunks: ServerHunk[]): ReviewAnswer | undefined {
  if (now === proposed) return undefined;
  const changes = lineDiff(splitLines(base), splitLines(now));
  const rejectedHunks = hunks.flatMap((h, i) => (changes.some((c) => touches(h, c)) ? [] : [i]));
  return { content: now, rejectedHunks };
}
