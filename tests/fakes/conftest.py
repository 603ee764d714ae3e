"""Fixtures for the fake-server self tests."""

from tests.fakes.fixtures import fake_llm

__all__ = ["fake_llm"]
