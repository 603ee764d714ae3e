"""The SQLite store: sessions, messages, permission decisions, capability cache."""

from .records import Decision, SessionRecord
from .sessions import Store, derive_title

__all__ = ["Decision", "SessionRecord", "Store", "derive_title"]
