"""Chapter 09's bars: hit rates that differ, and speeds that count as the same. A finding is shown,
clear or the same only against a bar named here; comparisons of repeated runs also need their
ranges apart (``servelab.bench.spread``).
"""

from __future__ import annotations

# ``servelab.lessons.past_one_machine.findings`` reads these, and the reuse bar from
# ``servelab.lessons.prefix.thresholds``.
HIT_RATE_SHOWN = 0.05  # prefix-cache hit rates that many points apart differ (routing)
SAME_SPEED = 0.15  # output rates within 15 % count as the same (two copies, one server)
