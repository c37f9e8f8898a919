"""What each snapshotted chapter keeps of one real run, and how its whole story is rendered.

``NAMES``: the findings a chapter's executed notebook holds, by the name they are kept under,
each an expression in that notebook's kernel; ``KINDS``: the type each is read back as;
``RENDER``: the chapter's function that writes every sentence of the page from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelab.lessons.single_user.slots import SlotFindings
from servelab.lessons.single_user.slots_words import page_words
from servelab.lessons.single_user.when_not_to import EngineFindings

NAMES: dict[str, dict[str, str]] = {
    "08-when-not-to": {"engines": "engines_found", "found": "slot_found",
                       "prefix_words": "sizes.prefix_words"},
}
KINDS: dict[str, dict[str, Any]] = {
    "08-when-not-to": {"engines": EngineFindings, "found": SlotFindings, "prefix_words": int},
}
RENDER: dict[str, Callable[..., str]] = {
    "08-when-not-to": page_words,
}
