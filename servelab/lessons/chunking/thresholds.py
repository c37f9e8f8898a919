"""Chapter 06's bars (chapter 00 reuses them): when chunking shortened a pause, and when a gap is a
hitch. A finding is shown, clear or the same only against a bar named here; comparisons of
repeated runs also need their ranges apart (``servelab.bench.spread``).
"""

from __future__ import annotations

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
# The chunked read's extra time beside the users, per chunk, is "about the users' usual step"
# (the decoding each chunk's step also carried) within this share of that step.
CHUNK_STEP_NEAR = 0.5
# A document at least this many times as long as the prompts the device model's reading was timed at
# (or as many times shorter) reads at a rate of its own: each token attends to every one before it.
DOCUMENT_LENGTH_APART = 1.2
