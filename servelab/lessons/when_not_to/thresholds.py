"""Chapter 08's bar: when llama.cpp serves one user at least as quickly. A finding is shown, clear
or the same only against a bar named here; comparisons of repeated runs also need their ranges
apart (``servelab.bench.spread``).
"""

from __future__ import annotations

from servelab.lessons.thresholds import ALIKE

# One user alone is served "at least as quickly" by llama.cpp when its packed file reaches this
# share of vLLM's speed.
ALONE_KEEPS = 1 - ALIKE
# A prompt at least this many times as long as the prompts the device model's reading was timed at
# (or as many times shorter) reads at a rate of its own: each token attends to every one before it.
PROMPT_LENGTH_APART = 1.2
