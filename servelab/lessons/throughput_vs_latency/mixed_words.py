"""The words of chapter 07's mixed traffic, in Markdown: two deployments side by side against
one server for everything, from ``mixed_findings.MixedFindings``."""

from __future__ import annotations

from servelab.lessons.compare import Compared
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.plural import plural_s
from servelab.lessons.throughput_vs_latency.mixed_findings import MixedFindings
from servelab.lessons.untold_words import cannot_tell


def _part_words(outcome: Compared | None, runs: int, what: str) -> str:
    """One part of the traffic, side by side against one server, as a clause; ``runs``: the
    fewer of the two set-ups' servings."""
    if outcome is Compared.LOWER:
        return f"{what} did better side by side, beyond the spread of the runs"
    if outcome is Compared.HIGHER:
        return f"{what} did worse side by side, beyond the spread of the runs"
    if runs < 2:
        return f"with one run each there is no spread to weigh the difference for {what} against"
    return f"for {what} {cannot_tell('the set-ups apart')}"


def mixed_text(found: MixedFindings) -> str:
    """The pair against one server for everything, or why there is no pair."""
    if found.split is None or found.pair_chat is None or found.pair_job is None:
        return (
            "This device could not be split between two servers (it has one core), so the "
            "page makes no claim about two deployments; the one-deployment rows are above."
        )
    rows = [
        [
            name,
            f"{chat.with_range()}, {chat.n} run{plural_s(chat.n)}",
            f"{job.with_range(1)}, {job.n} run{plural_s(job.n)}",
        ]
        for name, chat, job in (
            ("Two servers, side by side", found.pair_chat, found.pair_job),
            ("One server for everything, its best", found.best_chat, found.best_job),
        )
    ]
    table = findings_table(["Set-up", "Chat users' p99 first token (ms)", "The job took (s)"], rows)
    setup = (
        f"The chat server ran on {found.split[0]}, the job's on {found.split[1]}. The one "
        f"server for everything ran on {found.single}."
    )
    return (
        _verdict(found) + _hardware(found) + f"\n\n{table}" + fold(setup, "What each set-up ran on")
    )


def _hardware(found: MixedFindings) -> str:
    """On two GPUs or more, what each side had: the pair twice the one server's hardware."""
    if not found.more_hardware:
        return ""
    return (
        " Mind the hardware, though: the pair had two GPUs, a card each, against the one "
        "server's one card. With twice the hardware, a lead of the pair's is the second "
        "card's as much as the split's. This run cannot say what splitting one card would "
        "buy."
    )


def _verdict(found: MixedFindings) -> str:
    """What the pair's two outcomes against the one server come to."""
    outcomes = (found.chat, found.job)
    if outcomes == (Compared.LOWER, Compared.LOWER):
        if found.more_hardware:
            return (
                "With a card each, the pair gave the chat users quicker first tokens and "
                "finished the job sooner."
            )
        return (
            "With those shares, the split gave the chat users quicker first "
            "tokens and finished the job sooner. Keeping the job's long requests out "
            "of the chat server's steps paid for itself here."
        )
    if outcomes == (Compared.LOWER, Compared.HIGHER):
        return (
            "The split protected the chat users, and the job paid for it. On its "
            "share it took longer than on the one server. That is the "
            "trade to decide on — a chat that stays quick, or a job that ends sooner."
        )
    if outcomes == (Compared.HIGHER, Compared.LOWER):
        return (
            "The job did better on its share, but the chat users waited longer than "
            "on a shared server. On its share, the chat server's own steps were "
            "slower."
        )
    if outcomes == (Compared.HIGHER, Compared.HIGHER):
        return (
            "The pair lost on both counts here. Each share was too small for its "
            "traffic, and one server did better. Two "
            "deployments pay off when each has enough hardware of its own."
        )
    if set(outcomes) <= {Compared.ALIKE, Compared.UNTOLD}:
        told = _part_words(Compared.UNTOLD, found.chat_runs, "the chat users and the job")
    else:
        told = ". ".join(
            f"{part[0].upper()}{part[1:]}"
            for part in (
                _part_words(found.chat, found.chat_runs, "the chat users"),
                _part_words(found.job, found.job_runs, "the job"),
            )
        )
    return f"{told[0].upper()}{told[1:]}. " + _balance(found)


def _balance(found: MixedFindings) -> str:
    """What a split that was told apart on one side only comes to."""
    sides = {"the chat users": found.chat, "the job": found.job}
    worse = [side for side, outcome in sides.items() if outcome is Compared.HIGHER]
    better = [side for side, outcome in sides.items() if outcome is Compared.LOWER]
    if worse and not better:
        return (
            f"So in this run the split bought nothing one server did not give, and cost "
            f"{worse[0]} time."
        )
    if better and not worse:
        return f"So in this run the split served {better[0]} better, at no cost the runs can tell."
    return "So this run does not say whether two deployments beat one here."
