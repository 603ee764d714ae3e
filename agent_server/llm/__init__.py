"""LLM providers: one class per wire format, all speaking the `Provider` protocol of `base.py`."""
