"""Progress on long work (a server's start, a measurement run), shown as its output is kept.

Where a reader watches (a live notebook, a terminal) the work draws a moving bar. A built page
keeps a bar as it was first drawn, at a few per cent with a wild time estimate, so the book build
turns bars off with tqdm's own switch, ``TQDM_DISABLE=1``; there a server's start prints the one
line its finished bar would have shown instead (its start time), and a measurement run prints its
line (requests, time and rate) only where some of its requests failed.
"""

from __future__ import annotations

import os

OFF_VAR = "TQDM_DISABLE"
# Work that ends sooner than this draws no bar at all.
DELAY_S = 2.0


def bars_shown(asked: bool = True) -> bool:
    """Whether work draws a bar: when asked, and ``TQDM_DISABLE`` is unset or 0."""
    return asked and os.environ.get(OFF_VAR, "").strip() in ("", "0")


class Waiting:
    """Time spent waiting for ``what`` (no count, no total): a bar that shows the time so far,
    or, where bars are off, one line at the end."""

    def __init__(self, what: str) -> None:
        # Imported here: set-up runs servelab.env, which imports this package, before tqdm is
        # installed (tests/tooling/test_setup_commands.py).
        from tqdm.auto import tqdm

        self.what = what
        self.bar = tqdm(
            desc=f"{what} starting",
            bar_format="{desc} {elapsed}",
            delay=DELAY_S,
            disable=not bars_shown(),
        )

    def tick(self) -> None:
        """Redraw the time so far (tqdm limits how often it actually draws)."""
        self.bar.update(0)

    def done(self, seconds: float) -> None:
        if self.bar.disable:
            print(f"{self.what} ready after {seconds:.0f} s", flush=True)
        else:
            self.bar.set_description_str(f"{self.what} ready after", refresh=False)
            self.bar.close()

    def failed(self) -> None:
        self.bar.close()
