"""What each snapshotted chapter keeps of one real run, and how its whole story is rendered.

``NAMES``: the findings a chapter's executed notebook holds, by the name they are kept under,
each an expression in that notebook's kernel; ``KINDS``: the type each is read back as;
``RENDER``: the chapter's function that writes every sentence of the page from them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from servelab.lessons.capacity import words as capacity_words
from servelab.lessons.capacity.findings import PlanCheck
from servelab.lessons.single_user.findings import EngineFindings
from servelab.lessons.single_user.slots import SlotFindings
from servelab.lessons.single_user.slots_words import page_words

NAMES: dict[str, dict[str, str]] = {
    "08-when-not-to": {"engines": "engines_found", "found": "slot_found",
                       "prefix_words": "sizes.prefix_words"},
    "10-capacity-plan": {"check": "check"},
}
KINDS: dict[str, dict[str, Any]] = {
    "08-when-not-to": {"engines": EngineFindings, "found": SlotFindings, "prefix_words": int},
    "10-capacity-plan": {"check": PlanCheck},
}
RENDER: dict[str, Callable[..., str]] = {
    "08-when-not-to": page_words,
    "10-capacity-plan": capacity_words.page_words,
}
