"""Context management: token accounting, the budget gate, pruning, compaction and eviction. Pure functions."""

from .budget import Budget, answer_reserve, check_budget, usage
from .compaction import CompactionResult, Summarizer, compact, pair_problems, summarizer_prompt
from .notes import SessionNotes, with_summary
from .overflow import is_overflow, is_overflow_error, overflow_error
from .pruning import prune_tool_results
from .shrink import Shrink, compress_result, shrink_recent, stub_arguments
from .tokens import TokenCounter, estimate_message, estimate_messages, estimate_text, estimate_tools
from .window import NUM_CTX_LADDER, choose_num_ctx, context_window

__all__ = [
    "NUM_CTX_LADDER",
    "Budget",
    "CompactionResult",
    "SessionNotes",
    "Shrink",
    "Summarizer",
    "TokenCounter",
    "answer_reserve",
    "check_budget",
    "choose_num_ctx",
    "compact",
    "compress_result",
    "context_window",
    "estimate_message",
    "estimate_messages",
    "estimate_text",
    "estimate_tools",
    "is_overflow",
    "is_overflow_error",
    "overflow_error",
    "pair_problems",
    "prune_tool_results",
    "shrink_recent",
    "stub_arguments",
    "summarizer_prompt",
    "usage",
    "with_summary",
]
