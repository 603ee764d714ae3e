/** A tiny syntax highlighter for code blocks: comments, strings, numbers and keywords of common languages. */

import { escapeHtml } from "./escape";

const KEYWORDS = new Set(
  (
    "abstract and as async await break case catch class const continue def default del do elif else enum except " +
    "export extends false final finally fn for from func function go if impl import in interface is lambda let " +
    "match mod module mut new nil None not null or package pass private protected pub public raise return self " +
    "static struct super switch this throw True true try type typeof use var void while with yield False " +
    "int str bool float string number boolean char long double unsigned"
  ).split(" "),
);

const HASH_COMMENT = new Set(["python", "py", "sh", "bash", "shell", "shellscript", "zsh", "ruby", "rb", "yaml", "yml", "toml", "r", "perl", "dockerfile", "makefile", "ini", "conf"]);

const PLAIN = new Set(["text", "plaintext", "txt", "output", "log", "console"]);

type Rule = [RegExp, string];

function rulesFor(lang: string): Rule[] {
  const hash = HASH_COMMENT.has(lang);
  const comment: Rule = hash ? [/#[^\n]*/y, "c"] : [/\/\/[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/y, "c"];
  return [
    comment,
    [/"""[\s\S]*?(?:"""|$)|'''[\s\S]*?(?:'''|$)/y, "s"],
    [/"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|`(?:[^`\\]|\\.)*`?/y, "s"],
    [/\b(?:0[xob][\da-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b/y, "n"],
    [/[A-Za-z_$][\w$]*/y, "w"],
  ];
}

/** Highlighted HTML for `code`; unknown languages still get strings/comments/numbers. Always escaped. */
export function highlight(code: string, lang = ""): string {
  const language = lang.toLowerCase();
  if (PLAIN.has(language)) return escapeHtml(code);
  const rules = rulesFor(language);
  let out = "";
  let plain = "";
  let i = 0;
  const flush = (): void => {
    out += escapeHtml(plain);
    plain = "";
  };
  outer: while (i < code.length) {
    for (const [re, cls] of rules) {
      re.lastIndex = i;
      const m = re.exec(code);
      if (!m || m[0].length === 0) continue;
      const text = m[0];
      if (cls === "w") {
        if (KEYWORDS.has(text)) {
          flush();
          out += `<span class="tok-k">${escapeHtml(text)}</span>`;
        } else {
          plain += text;
        }
      } else {
        flush();
        out += `<span class="tok-${cls}">${escapeHtml(text)}</span>`;
      }
      i += text.length;
      continue outer;
    }
    plain += code[i];
    i++;
  }
  flush();
  return out;
}
