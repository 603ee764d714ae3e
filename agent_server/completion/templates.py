"""Fill-in-the-middle prompts in each model family's own tokens, for servers that take a raw prompt.

llama.cpp's `/infill` builds the prompt itself from the model's vocabulary; Ollama (`raw: true`) and OpenAI-compatible
`/v1/completions` need it written out. Families with repository-level tokens (Qwen2.5-Coder, StarCoder2) get the extra
context as files before the current one, the layout they were trained on; the others get prefix and suffix only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .types import FimRequest


@dataclass(frozen=True)
class FimTemplate:
    name: str
    prefix: str
    suffix: str
    middle: str
    stop: tuple[str, ...]
    suffix_first: bool = False  # Codestral: [SUFFIX]…[PREFIX]…
    repo_name: str | None = None  # repository-level tokens, when the family has them
    file_sep: str | None = None

    def render(self, req: FimRequest) -> str:
        head = ""
        if self.file_sep is not None and req.extra:
            parts = [f"{self.repo_name}{req.repo_name}\n"] if self.repo_name else []
            for chunk in req.extra:
                parts.append(f"{self.file_sep}{chunk.path}\n{chunk.text.rstrip()}\n")
            parts.append(f"{self.file_sep}{req.path}\n")
            head = "".join(parts)
        if self.suffix_first:
            return f"{head}{self.suffix}{req.suffix}{self.prefix}{req.prefix}{self.middle}"
        return f"{head}{self.prefix}{req.prefix}{self.suffix}{req.suffix}{self.middle}"


TEMPLATES: dict[str, FimTemplate] = {
    t.name: t
    for t in (
        FimTemplate(
            "qwen",
            "<|fim_prefix|>",
            "<|fim_suffix|>",
            "<|fim_middle|>",
            ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_end|>", "<|fim_prefix|>"),
            repo_name="<|repo_name|>",
            file_sep="<|file_sep|>",
        ),
        FimTemplate(
            "starcoder",
            "<fim_prefix>",
            "<fim_suffix>",
            "<fim_middle>",
            ("<|endoftext|>", "<file_sep>", "<fim_prefix>", "<repo_name>"),
            repo_name="<repo_name>",
            file_sep="<file_sep>",
        ),
        FimTemplate("codellama", "<PRE> ", " <SUF>", " <MID>", ("<EOT>", "</s>")),
        FimTemplate(
            "deepseek", "<｜fim▁begin｜>", "<｜fim▁hole｜>", "<｜fim▁end｜>", ("<｜end▁of▁sentence｜>", "<|EOT|>")
        ),
        FimTemplate("codestral", "[PREFIX]", "[SUFFIX]", "", ("</s>", "[PREFIX]", "[SUFFIX]"), suffix_first=True),
        FimTemplate("codegemma", "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", ("<|file_separator|>", "<eos>")),
    )
}

# Model names (any server's spelling) -> family. Only families trained for FIM are here: a chat model given these
# tokens writes prose, so an unknown name means "cannot tell", never a guess.
_FAMILIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"qwen[\d.]*[-_ ]?coder|qwen3[-_]coder", re.I), "qwen"),
    (re.compile(r"starcoder|stable[-_]?code|refact", re.I), "starcoder"),
    (re.compile(r"code[-_]?llama", re.I), "codellama"),
    (re.compile(r"deepseek[-_]?coder", re.I), "deepseek"),
    (re.compile(r"codestral", re.I), "codestral"),
    (re.compile(r"codegemma", re.I), "codegemma"),
)


def family_of(model: str) -> str | None:
    """The FIM family of a model name (`qwen2.5-coder:1.5b-base` -> qwen), or None when the name does not say."""
    for pattern, family in _FAMILIES:
        if pattern.search(model):
            return family
    return None


def template_for(setting: str, model: str) -> FimTemplate | None:
    """The template `completion.fim_template` asks for (`auto`: from the model name); None = the server's own."""
    if setting == "server":
        return None
    name = family_of(model) if setting == "auto" else setting
    return TEMPLATES.get(name) if name else None
