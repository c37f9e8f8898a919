"""The one wording of a verdict that the runs cannot tell (``compare.NOT_TOLD_APART``): their
ranges overlap, so a run cannot tell what the page asks. Every chapter's words say it here."""


def overlap(whose: str = "", *, start: bool = False) -> str:
    """That the ranges overlap, "the ranges overlap", or ``whose`` ranges ("the runs' ranges
    overlap"); ``start``: capitalised, to open a sentence."""
    text = " ".join(part for part in ("the", whose, "ranges overlap") if part)
    return text[:1].upper() + text[1:] if start else text


def cannot_tell(what: str, why: str = "", *, who: str = "this run") -> str:
    """Why the runs cannot tell ``what`` (``why``; the ranges overlap where it is empty), and so
    that ``who`` cannot: "the ranges overlap, so this run cannot tell the two apart"."""
    return f"{why or overlap()}, so {who} cannot tell {what}"
