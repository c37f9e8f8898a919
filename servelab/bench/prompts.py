"""Prompts of an exact token length, made with the server's own tokenizer.

vLLM's API server exposes ``POST /tokenize`` and ``POST /detokenize`` (at the root, not under
``/v1``). A seeded stream of plain words is tokenized, cut to the wanted length, decoded, and
tokenized again to check that the text really is that many tokens on the completions endpoint.
"""

from __future__ import annotations

import json
import random
import urllib.request
from typing import Protocol, runtime_checkable

WORDS = (
    "time year people way day man thing woman life child world school state family student "
    "group country problem hand part place case week company system program question work "
    "government number night point home water room mother area money story fact month lot "
    "right study book eye job word business issue side kind head house service friend father "
    "power hour game line end member law car city community name president team minute idea "
    "kid body information back parent face others level office door health person art war "
    "history party result change morning reason research girl guy moment air teacher force "
    "education river garden bridge window market letter engine signal cloud stone paper light "
    "music table forest island valley winter summer harbor train camera planet ocean library"
).split()

# How many extra tokens to try cutting at when a cut point does not survive a round trip.
MAX_CUT_ADJUSTMENTS = 8


class PromptSource(Protocol):
    """Anything that makes a prompt of ``n_tokens`` tokens from a seed."""

    def text(self, n_tokens: int, seed: int) -> str: ...


@runtime_checkable
class TokenizingSource(PromptSource, Protocol):
    """A prompt source that also gives the server's token ids of a text (``ServerPrompts``)."""

    def tokenize(self, text: str) -> list[int]: ...


def seeded_words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(WORDS) for _ in range(count)]


class ServerPrompts:
    """Exact-length prompts for one running server (``url`` without ``/v1``)."""

    def __init__(self, url: str, model: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self._cache: dict[tuple[int, int], str] = {}

    def _post(self, path: str, body: dict[str, object]) -> dict:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            return json.loads(response.read())

    def tokenize(self, text: str) -> list[int]:
        body = {"model": self.model, "prompt": text, "add_special_tokens": True}
        return self._post("/tokenize", body)["tokens"]

    def detokenize(self, tokens: list[int]) -> str:
        return self._post("/detokenize", {"model": self.model, "tokens": tokens})["prompt"]

    def text(self, n_tokens: int, seed: int) -> str:
        """Text that the server tokenizes into exactly ``n_tokens`` tokens."""
        if n_tokens < 1:
            raise ValueError(f"a prompt needs at least one token, not {n_tokens}")
        key = (n_tokens, seed)
        if key not in self._cache:
            self._cache[key] = self._exact_text(n_tokens, seed)
        return self._cache[key]

    def _exact_text(self, n_tokens: int, seed: int) -> str:
        count = n_tokens + MAX_CUT_ADJUSTMENTS
        tokens = self.tokenize(" ".join(seeded_words(seed, count)))
        while len(tokens) < n_tokens + MAX_CUT_ADJUSTMENTS:
            count *= 2
            tokens = self.tokenize(" ".join(seeded_words(seed, count)))
        for extra in range(MAX_CUT_ADJUSTMENTS):
            text = self.detokenize(tokens[: n_tokens + extra]).strip()
            again = self.tokenize(text)
            if len(again) == n_tokens:
                return text
            if len(again) > n_tokens:
                text = self.detokenize(again[:n_tokens]).strip()
                if len(self.tokenize(text)) == n_tokens:
                    return text
        raise RuntimeError(f"could not make a prompt of exactly {n_tokens} tokens (seed {seed})")


class WordPrompts:
    """Server-free prompts of ``n_tokens`` words: for planning and tests, not exact tokens."""

    def text(self, n_tokens: int, seed: int) -> str:
        return " ".join(seeded_words(seed, n_tokens))
