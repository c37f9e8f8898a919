"""Chapter 07's bars: Little's law, tails, the two caps and goodput. A finding is shown, clear or
the same only against a bar named here; comparisons of repeated runs also need their ranges apart
(``servelab.bench.spread``).
"""

from __future__ import annotations

# Little's law and the engine's sampled count "agree" within this share of the engine's count:
# /metrics is sampled once a second, so a short run's average moves by a request or so.
LITTLE_AGREES = 0.25
# Beyond that share, the two are told apart only when they differ by more than this many
# standard errors of their difference (the sampled average's and the mean time's together):
# within it, two estimates this rough can differ by chance about one run in twenty.
LITTLE_SAMPLING = 2.0
# A p99 describes a tail only with at least this many requests: with fewer, 1 % of them is less
# than one request and the p99 is drawn between the two slowest.
TAIL_REQUESTS = 100
# The large cap gave "at least half of what the extra sequences could give" when, its output's
# range above the small cap's, the gain was at least this share of the smaller of two gains: the
# sequences it ran at once against the small cap's slots, and the lesson's GPU gain.
MOST_OF_EXTRA = 0.5
# The two caps' figures (time per token, output) differ only when their ranges are apart and
# their medians more than this share apart. The ranges are over one server's repeats; the two
# servers run minutes apart, and a shared machine's speed drifts by a few percent between them.
SERVERS_ALIKE = 0.10
# Goodput as DistServe counts it: the highest arrival rate at which at least this share of the
# requests met every SLO, in every run.
ATTAINMENT_TARGET = 0.90
