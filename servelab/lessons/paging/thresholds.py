"""Chapter 03's bar: when a cramped cache's runs took longer. A finding is shown, clear or the same
only against a bar named here; comparisons of repeated runs also need their ranges apart
(``servelab.bench.spread``).
"""

from __future__ import annotations

# The cramped cache's runs took longer than the roomy one's only with the ranges apart and the
# medians past this share: a smaller gap is within what one machine's runs differ by.
SQUEEZE_SLOWER = 0.10
