"""The edit formats: how a model is asked for edits, where they are read in its answer, how its earlier answers are
replayed to it, and when an answer that made edits ends the turn (`format.py`; the formats in `registry.py`)."""
