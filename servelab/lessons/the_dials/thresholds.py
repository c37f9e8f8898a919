"""Chapter 05's bars: when the batch dial's gain showed, and when a latency moved. A finding is
shown, clear or the same only against a bar named here; comparisons of repeated runs also need
their ranges apart (``servelab.bench.spread``).
"""

from __future__ import annotations

# The top level's output against one sequence per step shows batching's gain at this ratio.
THROUGHPUT_SHOWN = 1.2
# A latency that moved more than this share rose or fell; within it, it stayed about the same.
CHANGED = 0.10
