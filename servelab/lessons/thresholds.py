"""The bar several chapters share; each chapter's own bars live in its package's ``thresholds``
module (``servelab.lessons.batching.thresholds``, ``...chunking.thresholds`` and so on).

A finding is "shown", "clear" or "the same" only against a named bar: the findings records import
them and the wording functions never compare. Comparisons of repeated runs also need their ranges
apart (``servelab.bench.spread``): these bars say how large a difference must be besides.
"""

from __future__ import annotations

# Two speeds are "about as fast" within this share of each other; beyond it one leads. One run
# per engine on a shared machine moves by about this much.
ALIKE = 0.1

# A number the device model predicted before measuring is "close" to the measured median within
# this share of it (where it is not inside the runs' range).
PREDICTION_CLOSE = 0.25
# Runs that spread over more than this share of their median cannot place a prediction: inside
# or outside, the machine varied more than any model of it could say.
RUNS_SCATTERED = 0.5

# A reader's written prediction is "close" to what the page measured within this factor either
# way (measured ÷ written between 1 ÷ 1.25 and 1.25): a guess made before any number was seen.
GUESS_CLOSE = 0.25
