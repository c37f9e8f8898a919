"""Chapters 01 and 02's bars (and chapter 00's and the smoke check's, which reuse them): when
batching showed, and how strongly. A finding is shown, clear or the same only against a bar named
here; comparisons of repeated runs also need their ranges apart (``servelab.bench.spread``).
"""

from __future__ import annotations

# Batching shows when the total at the top of a sweep is at least this many times one stream's.
# Below it run-to-run noise on a shared machine can produce the ratio without any batching.
# (The smoke check once measured exactly 2.0x over the whole run on a 2-core AVX2 machine.)
SHOWN_GAIN = 1.5
# The effect has the lesson's strength when the gain per stream (the gain ÷ the streams, which
# in the steady state is the share of one stream's speed each user keeps) is at least this
# share of the lesson's own: at 32 streams a gain of 15× against the lesson's 20×.
LESSON_STRENGTH = 0.75
# Continuous batching beat static waves clearly when the same requests took at least this many
# times longer in waves. The same noise argument as SHOWN_GAIN and so the same value, but a ratio
# of two durations of one set of requests, not of totals at two loads: named apart so that
# either can move without the other.
CONTINUOUS_CLEAR = 1.5
# Above this the continuous run won at all; below it the two durations are within timing noise.
CONTINUOUS_WON = 1.05
# The continuous run's idle slot time is "mostly the tail" when this share came after the last
# request was sent.
TAIL_MOSTLY = 0.75
# One stream runs "close to" the bandwidth ceiling (all weights read once per token) at or above
# this share of it.
CEILING_NEAR = 0.5
# A fitted per-sequence cost agrees with the arithmetic's prediction within this factor either way.
AGREE_FACTOR = 2.0
# A line through fewer batch sizes than this fits any numbers exactly, so its split is rough.
FIRM_FIT_POINTS = 3
# A step-time line splits a step into its parts only with at least this R² (and both parts
# positive); below it the step times scattered more than the batch explains.
FIT_R2_SPLITS = 0.5
# With one pass (no ranges to compare), the gain the step fit predicts agrees with the measured
# gain while the two are within this share of each other.
GAIN_AGREE_SHARE = 0.1
