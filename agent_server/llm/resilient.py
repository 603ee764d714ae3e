"""Retries with backoff for one endpoint, and a fallback chain over several (provider, model) pairs.

Both only act before the first event of a stream: once text reached the user, a retry would duplicate it (a `Notice`
is no answer: it does not count). A 429 is retried only after the wait its Retry-After asks for, when that is at most
`retry_after_max_s`, and the wait is shown; without one, or longer, it is not retried (a rate limit or a gateway's
spent budget would only fail again) and the error says what the server said.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from ..errors import ContextOverflowError, LLMError, LLMHTTPError
from ..messages import Notice, StreamEvent
from .base import ChatRequest, ModelInfo, Provider

log = logging.getLogger(__name__)
T = TypeVar("T")
Sleep = Callable[[float], Awaitable[Any]]


async def _close(stream: AsyncIterator[StreamEvent]) -> None:
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


class RetryingProvider:
    """Retries connection errors and 5xx (`LLMError.retryable`) with exponential backoff and jitter, and a 429 after
    the Retry-After it asks for (at most `retry_after_max_s`)."""

    def __init__(
        self,
        inner: Provider,
        tries: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 8.0,
        sleep: Sleep = asyncio.sleep,
        retry_after_max_s: float = 60.0,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.base_url = inner.base_url
        self.tries = max(1, tries)
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self.retry_after_max_s = retry_after_max_s

    def _delay(self, attempt: int) -> float:
        return float(min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0))

    def _wait(self, attempt: int, exc: LLMError) -> float | None:
        """How long to wait before the next try, or None when there is no next try."""
        if attempt >= self.tries:
            return None
        if isinstance(exc, LLMHTTPError) and exc.status == 429:
            wait = exc.retry_after
            return wait if wait is not None and wait <= self.retry_after_max_s else None
        return self._delay(attempt) if exc.retryable else None

    async def _backoff(self, attempt: int, delay: float, exc: LLMError) -> None:
        log.warning("LLM call failed (try %d of %d), retrying in %.1fs: %s", attempt, self.tries, delay, exc)
        await self._sleep(delay)

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        for attempt in range(1, self.tries + 1):
            started = False
            stream = self.inner.stream_chat(request)
            try:
                async for event in stream:
                    started = started or type(event) is not Notice
                    yield event
                return
            except LLMError as exc:
                wait = None if started else self._wait(attempt, exc)
                if wait is None:
                    raise
                if isinstance(exc, LLMHTTPError) and exc.status == 429:
                    yield Notice(
                        f"{_rate_limited(exc)}; trying again in {wait:.0f} s (try {attempt + 1} of {self.tries})"
                    )
                await self._backoff(attempt, wait, exc)
            finally:
                await _close(stream)

    async def _call(self, fn: Callable[[], Awaitable[T]]) -> T:
        for attempt in range(1, self.tries + 1):
            try:
                return await fn()
            except LLMError as exc:
                wait = self._wait(attempt, exc)
                if wait is None:
                    raise
                await self._backoff(attempt, wait, exc)
        raise AssertionError("unreachable")

    async def list_models(self) -> list[ModelInfo]:
        return await self._call(self.inner.list_models)

    async def model_info(self, model: str) -> ModelInfo:
        return await self._call(lambda: self.inner.model_info(model))

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        return await self._call(lambda: self.inner.embed(model, inputs))

    async def aclose(self) -> None:
        await self.inner.aclose()


class FallbackProvider:
    """Tries (provider, model) pairs in order; the request's model is replaced by each pair's model."""

    def __init__(self, chain: list[tuple[Provider, str]]) -> None:
        if not chain:
            raise ValueError("a fallback chain needs at least one endpoint")
        self.chain = chain
        self.name = chain[0][0].name
        self.base_url = chain[0][0].base_url

    async def stream_chat(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        failures: list[str] = []
        for provider, model in self.chain:
            started = False
            stream = provider.stream_chat(dataclasses.replace(request, model=model))
            try:
                async for event in stream:
                    started = started or type(event) is not Notice
                    yield event
                return
            except ContextOverflowError:
                raise  # another endpoint would not make the prompt smaller
            except LLMError as exc:
                if started:
                    raise
                log.warning("LLM endpoint %s (%s) failed, trying the next one: %s", provider.base_url, model, exc)
                failures.append(f"{provider.name} at {provider.base_url} with model '{model}': {exc}")
            finally:
                await _close(stream)
        raise LLMError("every configured LLM endpoint failed:\n" + "\n".join(f"- {f}" for f in failures))

    async def list_models(self) -> list[ModelInfo]:
        return await self.chain[0][0].list_models()

    async def model_info(self, model: str) -> ModelInfo:
        return await self.chain[0][0].model_info(model)

    async def embed(self, model: str, inputs: list[str]) -> list[list[float]]:
        return await self.chain[0][0].embed(model, inputs)

    async def aclose(self) -> None:
        seen: set[int] = set()
        for provider, _ in self.chain:
            if id(provider) not in seen:
                seen.add(id(provider))
                await provider.aclose()


def _rate_limited(exc: LLMHTTPError) -> str:
    """What a 429 said, in one line: the server's own message, cut."""
    message = " ".join(exc.message.split())
    return f"the LLM server is rate limiting (429: {message[:300]})"
