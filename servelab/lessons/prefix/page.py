"""Chapter 04 whole: every sentence the page writes from its findings, in page order, as one
text to review (the story snapshots in ``tests/snapshots``)."""

from __future__ import annotations

from servelab.lessons.prefix.first_token import FirstTokenModel
from servelab.lessons.prefix.reuse_findings import LoadReuseFindings, ReuseFindings
from servelab.lessons.prefix.sharing_findings import SharingFindings
from servelab.lessons.prefix.words import (
    first_token_text,
    reuse_prediction,
    reuse_text,
    sharing_text,
)


def page_words(first_token: FirstTokenModel, reuse: ReuseFindings, load: LoadReuseFindings,
               sharing: SharingFindings, prediction: str = "") -> str:
    """Every sentence chapter 04 writes from its findings, in page order: one text to review."""
    return "\n\n".join((first_token_text(first_token), reuse_prediction(prediction, reuse, load),
                        reuse_text(reuse, load), sharing_text(sharing)))
