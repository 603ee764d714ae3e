"""How much each signal of the hybrid ranking counts (search.py reads them; the benchmarks switch them off one by
one for the ablation)."""

from __future__ import annotations

from dataclasses import dataclass

from .fusion import VECTOR_WEIGHT


@dataclass
class Weights:
    """How much each signal counts; tuned on the dev split of the retrieval benchmark only."""

    bm25: float = 1.0
    definition: float = 0.8
    path: float = 1.2
    frame_file: float = 1.5
    frame_line: float = 0.8
    graph: float = 0.5
    prior: float = 0.1
    file_spread: float = 0.25
    file_bm25: float = 0.5  # BM25 of the whole file as one document
    vector: float = VECTOR_WEIGHT  # RRF weight of the nearest-neighbour ranking (the lexical one counts 1)
    open_file: float = 0.15
    edited_file: float = 0.3
    test_penalty: float = 0.4  # test files, unless the query names a test file of the workspace
    test_word_penalty: float = 0.4  # test files when the query only says "test" (bug reports usually do)
    doc_penalty: float = 0.6  # prose (README, changelogs, .rst/.md docs) unless the query talks about docs
    example_penalty: float = 0.7  # code under doc/, examples/, bench/: not the project itself
    phrase: float = 0.8  # the chunk contains an error message of the request verbatim
    strong_definition: float = 0.4  # defines a name the request quotes as code or as an error type
    define_file: float = 0.3  # file level: the file defines a query identifier (not just mentions it)
    wide_file_query: float = 1.0  # 1: the file-level BM25 also gets up to FILE_TERMS non-common terms; 0: off
    title: float = 0.3  # the request's first line (an issue title) against chunk paths and symbol names
    aggregate: float = 0.1  # file level: share of the file's 2nd and 3rd best chunk scores added to its best
    vendored_penalty: float = 0.6  # another project's code copied in (see `is_vendored_path`)
    salience: float = 1.0  # 1: title words and terms the request repeats count twice in BM25; 0: off
