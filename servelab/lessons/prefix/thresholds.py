"""Chapter 04's bars (chapter 00 reuses them; chapter 09's routing reads the first-token one): when
sharing and reuse showed, and when a predicted first token is close. A finding is shown, clear or
the same only against a bar named here; comparisons of repeated runs also need their ranges apart
(``servelab.bench.spread``).
"""

from __future__ import annotations

# n=4 shared the prompt when, with caching on, it held under this share of the blocks it held
# without; two peaks within SAME_BLOCKS of each other count as the same.
SHARING_SHOWN = 0.75
SAME_BLOCKS = 0.25
# Reuse shows when later requests computed under this share of the prompt tokens the control
# computed: a cached prefix removes most of them, noise removes none.
REUSE_SHOWN = 0.5
# A first token counts as sooner when it came at least this many times sooner with reuse.
TTFT_GAIN_SHOWN = 1.5
