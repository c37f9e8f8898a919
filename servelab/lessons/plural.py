"""The one rule the pages' sentences use for a counted noun's plural."""


def plural_s(count: int) -> str:
    """The ending a counted English noun takes: "1 request", "2 requests", "0 requests"."""
    return "" if count == 1 else "s"
