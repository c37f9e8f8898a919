"""Every bar a chapter's verdict is measured against, in one table.

A finding is "shown", "clear" or "the same" only against a number named here; the findings
records (``*findings.py`` in each topic, ``batching.steps``, ``routing`` ...) import them and
the wording functions never compare. Comparisons of repeated runs also need their ranges apart
(``servelab.bench.spread``): these bars say how large a difference must be besides.
"""

from __future__ import annotations

# -- Batching (chapters 00, 01, 02; the smoke check) ---------------------------------------------
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
# A number a model predicted before measuring is "close" to the measured median within this
# share of it (where it is not inside the runs' range).
PREDICTION_CLOSE = 0.25
# With one pass (no ranges to compare), the gain the step fit predicts agrees with the measured
# gain while the two are within this share of each other.
GAIN_AGREE_SHARE = 0.1

# -- Paged attention (chapter 03) ---------------------------------------------------------------
# The cramped cache's runs took longer than the roomy one's only with the ranges apart and the
# medians past this share: a smaller gap is within what one machine's runs differ by.
SQUEEZE_SLOWER = 0.10

# -- Prefix reuse (chapters 00, 04) --------------------------------------------------------------
# n=4 shared the prompt when, with caching on, it held under this share of the blocks it held
# without; two peaks within SAME_BLOCKS of each other count as the same.
SHARING_SHOWN = 0.75
SAME_BLOCKS = 0.25
# Reuse shows when later requests computed under this share of the prompt tokens the control
# computed: a cached prefix removes most of them, noise removes none.
REUSE_SHOWN = 0.5
# A first token counts as sooner when it came at least this many times sooner with reuse.
TTFT_GAIN_SHOWN = 1.5

# -- The dials (chapter 05) ----------------------------------------------------------------------
# The top level's output against one sequence per step shows batching's gain at this ratio.
THROUGHPUT_SHOWN = 1.2
# A latency that moved more than this share rose or fell; within it, it stayed about the same.
CHANGED = 0.10

# -- Chunked prefill (chapters 00, 06) -----------------------------------------------------------
# Chunking shortened the users' longest pause (or bettered their tail while a document was read)
# when, the ranges over the documents apart, it was at least this many times shorter in chunks.
PAUSE_GAIN_SHOWN = 1.5
# The chunked pauses missed the pause the budget was sized for (from a lone prompt's prefill
# rate) when every document's longest pause was more than this many times the target, or less
# than the target by this factor; within it the sizing held within timing noise.
PAUSE_OFF_TARGET = 1.5
# A user's gap is a hitch (a step that carried part of a prompt, not only decoding) when it is
# longer than the usual step by at least this share of what reading one chunk of the budget
# should take: under it, a gap is within what a decode-only step varies by on a busy CPU.
HITCH_CHUNK_SHARE = 0.5

# -- Serving metrics and the throughput/latency trade (chapter 07) -------------------------------
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

# -- A single-user engine (chapter 08) -----------------------------------------------------------
# Two speeds are "about as fast" within this share of each other; beyond it one leads. One run
# per engine on a shared machine moves by about this much.
ALIKE = 0.1
# One user alone is served "at least as quickly" by llama.cpp when its packed file reaches this
# share of vLLM's speed.
ALONE_KEEPS = 1 - ALIKE

# -- Past one machine (chapter 09) ---------------------------------------------------------------
# Chapter 09's bars (``servelab.lessons.routing.findings`` imports them from here, with the
# reuse bar).
HIT_RATE_SHOWN = 0.05     # prefix-cache hit rates that many points apart differ (routing)
SAME_SPEED = 0.15         # output rates within 15 % count as the same (two copies, one server)
