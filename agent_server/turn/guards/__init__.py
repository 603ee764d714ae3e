"""The small-model guards of a turn (seeds 002 and 003): each implements the hook points of `guard.py` it needs, and
`registry.py` lists them in the order the loop asks them. Pure detectors (analysis, repetition, repeated calls and
looks, call holdback) sit beside the guards that act on them."""
