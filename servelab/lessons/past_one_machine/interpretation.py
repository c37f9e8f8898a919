"""Chapter 09's interpretation: the prediction beside the measured hit rates and failed
requests, then each section's words.
"""

from __future__ import annotations

from servelab.lessons.guess import Aim, Unit
from servelab.lessons.past_one_machine.copies_words import copies_text
from servelab.lessons.past_one_machine.failure_words import failure_text
from servelab.lessons.past_one_machine.failures import Failures, PastOneMachine
from servelab.lessons.past_one_machine.findings import CopiesFindings, RoutingFindings
from servelab.lessons.past_one_machine.policy_words import routing_text
from servelab.lessons.prediction import page_story


def interpretation_text(
    routed: RoutingFindings, failures: Failures, copied: CopiesFindings, prediction: str
) -> str:
    """The page's interpretation, in Markdown."""
    found = PastOneMachine(routed, failures, copied)
    (spreading, following), hits = found.routing.policies, found.routing.hit_rate
    measured = (
        f"a hit rate of {hits[0].median:.0%} with {spreading} and "
        f"{hits[1].median:.0%} with {following} (medians of {found.routing.runs} runs). "
        f"When a replica died, {found.failures.failed.with_range()} requests a run failed "
        f"({len(found.failures.runs)} run{'s' if len(found.failures.runs) > 1 else ''})"
    )
    aims = [
        Aim(f"the hit rate with {spreading}", hits[0].median, Unit.PERCENT),
        Aim(f"with {following}", hits[1].median, Unit.PERCENT),
    ]
    return page_story(
        prediction,
        measured,
        [
            ("Routing and the prefix cache", routing_text(found.routing)),
            ("A replica dies", failure_text(found.failures)),
            ("Two copies or one server", copies_text(found.copies)),
        ],
        aims,
    )
