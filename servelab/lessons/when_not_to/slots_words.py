"""Chapter 08's words for what separates llama-server's slots from vLLM, and the chapter's
take-away: each function picks its phrases from the findings' verdicts and formats the figures
they hold."""

from __future__ import annotations

from collections.abc import Mapping

from servelab.lessons.compare import Compared
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.when_not_to.against import Against
from servelab.lessons.when_not_to.crowd import PROMPT, STEP, CrowdCauses, MemoryUse
from servelab.lessons.when_not_to.findings import LLAMA_Q4, LLAMA_SERVER, VLLM, EngineFindings
from servelab.lessons.when_not_to.slots import PromptReuse, QueueWait, SlotFindings, StepLine


def _line(step: StepLine) -> str:
    return (
        f"{step.fit.fixed_ms:.1f} ms + {step.fit.per_sequence_ms:.2f} ms per sequence "
        f"(R² {step.fit.r_squared:.2f})"
    )


def _parts(found: SlotFindings) -> str:
    """Which engine has the smaller of each part of a step, and what that makes of the lines."""
    if not found.lines_split:
        return (
            "The steps scattered too much about one of the lines to split it into a shared "
            "part and a part per sequence. So this sweep cannot say where the engines' "
            "costs differ."
        )
    shared, per_sequence = found.smaller_shared, found.smaller_per_sequence
    fits = {engine: found.steps[engine].fit for engine in (found.server, found.vllm)}
    other = found.vllm if shared == found.server else found.server
    text = (
        f"{shared} has the smaller shared part ({fits[shared].fixed_ms:.1f} against "
        f"{fits[other].fixed_ms:.1f} ms)"
    )
    if shared == per_sequence:
        return text + (
            " and the smaller part per sequence too. So its step was the shorter at "
            "every batch of the sweep."
        )
    if found.lines_cross_at is None:
        return text + (
            f", {per_sequence} the smaller part per sequence "
            f"({fits[per_sequence].per_sequence_ms:.2f} against "
            f"{fits[shared].per_sequence_ms:.2f} ms). The lines meet outside the "
            f"sweep, so {found.shorter_throughout}'s step was the shorter at every "
            "batch measured."
        )
    return text + (
        f", {per_sequence} the smaller part per sequence "
        f"({fits[per_sequence].per_sequence_ms:.2f} against "
        f"{fits[shared].per_sequence_ms:.2f} ms). So the lines cross near "
        f"{found.lines_cross_at:.0f} sequences. With fewer in a step {shared} takes "
        f"the shorter step, with more {per_sequence} does. That is the one-user "
        "result and the crowd's in one picture."
    )


def timeline_title(slowest: Mapping[str, float], many: int) -> str:
    """The crowd's timelines' title: the slowest first token (s) in each engine's first run."""
    return (
        f"{many} users at once, each engine's first run: the slowest first token took "
        f"{slowest[LLAMA_Q4]:.1f} s on llama-cpp-python, {slowest[LLAMA_SERVER]:.1f} s on "
        f"llama-server, {slowest[VLLM]:.1f} s on vLLM"
    )


def steps_title(slot_found: SlotFindings) -> str:
    """The step lines' title: the largest batch's output against one sequence's, each engine."""
    steps = slot_found.steps
    return (
        f"{steps[slot_found.server].top} sequences per step gave "
        f"{steps[slot_found.server].gain:.1f}× one sequence's output on llama-server, "
        f"{steps[slot_found.vllm].gain:.1f}× on vLLM"
    )


def queue_title(slot_found: SlotFindings) -> str:
    """The over-the-cap timelines' title: how many waited for a place on each engine."""
    queue = slot_found.queue
    return (
        f"{queue[slot_found.vllm].users} users, room for {queue[slot_found.vllm].cap}: "
        f"{queue[slot_found.server].waited} waited for a place on llama-server, "
        f"{queue[slot_found.vllm].waited} on vLLM"
    )


def step_text(slot_found: SlotFindings) -> str:
    """Each engine's step at one sequence and at the sweep's largest batch, the parts of its
    line, and which engine shared a step better."""
    server, vllm = slot_found.steps[slot_found.server], slot_found.steps[slot_found.vllm]
    lead = (
        "Both engines shared a step among its sequences about as well, so what batching "
        "buys does not separate them here."
        if slot_found.gains_alike
        else f"{slot_found.larger_gain} shared its step among more sequences for less."
    )
    table = findings_table(
        [
            "Engine",
            "Step of 1 sequence (ms)",
            f"Step of {server.top} (ms)",
            f"Output of {server.top} against 1",
        ],
        [
            [name, f"{step.step_ms[0]:.1f}", f"{step.step_ms[-1]:.1f}", f"{step.gain:.1f}×"]
            for name, step in (("llama-server", server), ("vLLM", vllm))
        ],
    )
    return f"{lead}\n\n{table}" + fold(
        f"One sweep each, so no range. The lines through the steps are {_line(server)} and "
        f"{_line(vllm)}. " + _parts(slot_found),
        "The lines through the steps",
    )


def _waits(wait: QueueWait) -> list[str]:
    """One engine's row: how many waited, and the median first token with a place and
    without one (a dash where nobody waited)."""
    without = "–" if wait.queued_s is None else f"{wait.queued_s:.1f}"
    return [str(wait.waited), f"{wait.first_wave_s:.1f}", without]


def queue_text(slot_found: SlotFindings) -> str:
    """Who waited for a place when twice the cap arrived at once."""
    server, vllm = slot_found.queue[slot_found.server], slot_found.queue[slot_found.vllm]
    table = findings_table(
        [
            "Engine",
            "Users who waited",
            "Median first token, with a place (s)",
            "Median first token, waiting (s)",
        ],
        [[name, *_waits(wait)] for name, wait in (("llama-server", server), ("vLLM", vllm))],
    )
    room = (
        f"{server.users} users came at once, with room for {server.cap} on each engine: "
        f"{slot_found.slots} slots on llama-server and max_num_seqs={vllm.cap} on vLLM."
    )
    if slot_found.both_queue:
        return (
            f"Exactly those beyond the cap waited on both engines.\n\n{table}\n\nPast its "
            "cap vLLM queues as llama-server does, and its max_num_seqs plays the part of the "
            "slots."
        ) + fold(
            f"{room} Each waiting user started as soon as an answer ended and freed a place.",
            "The room on each engine",
        )
    off = [engine for engine, wait in slot_found.queue.items() if not wait.queued_past_cap]
    return (
        f"On {' and '.join(off)} the waiters were not exactly the {server.beyond_cap} "
        f"beyond the cap.\n\n{table}\n\nSo this run does not show the two engines queueing "
        "alike."
    ) + fold(room, "The room on each engine")


def memory_text(slot_found: SlotFindings) -> str:
    """Whether memory held any request back, then how each engine holds the KV cache of the
    sequences it runs; the arithmetic and the pool folded."""
    lead, backing = memory_verdict_parts(MemoryUse.of(slot_found))
    slots = (
        f"Each of llama-server's slots holds its own {slot_found.slot_context:,} tokens: a "
        "longer request fits in none, even with the others idle."
    )
    held = (
        f"llama-server set its whole context aside when it started: {slot_found.slots} "
        f"slots × {slot_found.slot_context:,} tokens = {slot_found.slot_tokens:,} tokens. "
        f"That is {slot_found.slots_mib:,.0f} MiB of KV cache in 16-bit values. llama.cpp "
        "can also give its slots one shared buffer, `--kv-unified`. This chapter gives each "
        "slot its own, the default with the slots named. "
    )
    if slot_found.pool is None:
        held += (
            "vLLM's log gave no pool size here, so this run cannot set its memory beside the slots."
        )
    else:
        held += (
            f"vLLM keeps one pool of {slot_found.pool.kv_cache_tokens:,} tokens and "
            "hands it out block by block as sequences grow. So one request may take up "
            f"to {slot_found.pool.max_model_len:,} tokens, and a short one holds only "
            "what it uses (chapter 03)."
        )
    return f"{lead} {slots}" + fold(f"{backing}\n\n{held}", "The slots and vLLM's pool")


def memory_verdict_parts(memory: MemoryUse) -> tuple[str, str]:
    """Whether memory held any request back in this chapter's runs (a sentence), and what
    shows it."""
    if memory.bound is False:
        text = (
            f"Of {memory.users} users sent at once, exactly the {memory.cap} beyond the cap "
            f"waited on both engines. Each of llama-server's {memory.slots} slots of "
            f"{memory.slot_context:,} tokens took a request at once."
        )
        if memory.pool_requests is not None and memory.max_model_len is not None:
            text += (
                f" vLLM's pool had room for {int(memory.pool_requests)} requests of its "
                f"full {memory.max_model_len:,} tokens, against {memory.cap} running."
            )
        return "Memory did not bind here: places decided who ran, not memory.", text
    if not memory.queued_past_cap:
        return (
            "This run cannot say whether memory bound.",
            "The users who waited were not "
            "exactly those beyond the cap, so something besides the places held some back.",
        )
    return (
        "This run cannot rule out memory on vLLM.",
        f"Its pool had room for only "
        f"{memory.pool_requests:.0f} requests of its full {memory.max_model_len:,} tokens, "
        f"fewer than the cap of {memory.cap}.",
    )


def memory_verdict_text(memory: MemoryUse) -> str:
    """Whether memory held any request back in this chapter's runs, and what shows it."""
    return " ".join(memory_verdict_parts(memory))


def _reuse(engine: str, reuse: PromptReuse) -> list[str]:
    """One engine's row: its first token with reuse and without, and how much sooner."""
    verdict = {
        Compared.HIGHER: f"{reuse.saving.ratio:.1f}× sooner with it",
        Compared.ALIKE: "about as soon either way",
        Compared.LOWER: "later with it",
        Compared.UNTOLD: "not told apart beyond the runs' spread",
    }[reuse.saving.compared]
    return [engine, reuse.on_ms.with_range(), reuse.off_ms.with_range(), verdict]


def reuse_text(slot_found: SlotFindings, prefix_words: int) -> str:
    """A shared prompt with each engine's reuse on and off."""
    missing = [engine for engine, sooner in slot_found.reused.items() if not sooner]
    lead = (
        "Reusing a shared prompt brought the first token sooner on both engines."
        if not missing
        else f"On {' and '.join(missing)} this run did not show reuse "
        "bringing the first token sooner. So it cannot set the two caches side by side."
    )
    table = findings_table(
        ["Engine (its reuse)", "First token, reuse on (ms)", "Reuse off (ms)", "With reuse"],
        [
            _reuse("llama-server (cache_prompt)", slot_found.reuse[slot_found.server]),
            _reuse("vLLM (prefix caching)", slot_found.reuse[slot_found.vllm]),
        ],
    )
    how = (
        f"One user sent requests that all start with the same {prefix_words}-word prompt. "
        "The figures count the requests after the first."
    )
    text = f"{lead}\n\n{table}"
    if missing:
        return text + fold(how, "How it was measured")
    return text + fold(
        f"{how} Both engines skip a prompt they have computed before. Where they keep it "
        "differs: llama-server in the slot that computed it (and in a copy in RAM, "
        "`--cache-ram`). vLLM keeps it in blocks found by their hash, which any request can "
        "share in place (chapter 04).",
        "How it was measured, and where each engine keeps the prompt",
    )


def times_as_long(against: Against, digits: int, unit: str) -> str:
    """Two waits, llama-server's then vLLM's, and which took how many times as long."""
    both = (
        f"{against.a.with_range(digits, unit)} on llama-server against "
        f"{against.b.with_range(digits, unit)} on vLLM"
    )
    verdict = {
        Compared.HIGHER: f"{against.times:.1f}× as long on llama-server",
        Compared.LOWER: f"{against.times:.1f}× as long on vLLM",
        Compared.ALIKE: "about as long on both",
        Compared.UNTOLD: "not told apart beyond the runs' spread",
    }[against.compared]
    return f"{both}: {verdict}"


def crowd_step_text(causes: CrowdCauses) -> str:
    """What each sequence added to each engine's step, and the step with the crowd in it."""
    per, fixed, step = causes.per_sequence_ms, causes.fixed_ms, causes.step_ms
    more_on, more = causes.per_sequence_more
    times = f"{more:.1f}× as much on {_SHORT[more_on]}"
    text = (
        f"Each sequence added {per[LLAMA_SERVER]:.2f} ms to llama-server's step and "
        f"{per[VLLM]:.2f} ms to vLLM's, {times} (one sweep each, so no range). The part "
        f"every step shares was {fixed[LLAMA_SERVER]:.1f} ms against {fixed[VLLM]:.1f} ms. "
    )
    took = (
        f"a step of {causes.many} sequences took"
        if causes.step_measured
        else f"the lines put a step of {causes.many} sequences at"
    )
    text += f"So {took} {step[LLAMA_SERVER]:.1f} ms on llama-server and {step[VLLM]:.1f} ms on vLLM"
    shorter = causes.shorter_step
    if shorter is None:
        return text + ": about as long on both, so the step did not separate them."
    longer = LLAMA_SERVER if shorter == VLLM else VLLM
    text += f": {causes.step_times:.1f}× as long on {_SHORT[longer]}."
    if shorter != causes.cheaper_per_sequence:
        text += (
            f" Of the two, {_SHORT[causes.cheaper_per_sequence]} added less per sequence. "
            f"But its larger shared part kept its step the longer at {causes.many}."
        )
    return text


def crowd_prompt_text(causes: CrowdCauses) -> str:
    """How long each engine took to read a fresh prompt, one user alone."""
    return (
        f"A first token for a fresh prompt of the crowd's size, one user alone, took "
        f"{times_as_long(causes.prompt, 2, ' s')}. The long shared prompt with reuse off "
        f"took {times_as_long(causes.long_prompt, 0, ' ms')}."
    )


_SHORT = {LLAMA_SERVER: "llama-server", VLLM: "vLLM"}
_MECHANISM = {STEP: "shorter step with the crowd in it", PROMPT: "quicker prompt reading"}


def crowd_verdict_text(causes: CrowdCauses) -> str:
    """Whether the step and the prompt reading account for the crowd's totals."""
    parts = {
        engine: [_MECHANISM[name] for name, side in causes.favoured.items() if side == engine]
        for engine in (LLAMA_SERVER, VLLM)
    }
    leader = causes.leader
    if causes.explained is None:
        return (
            "The crowd's totals were not told apart, so this run cannot weigh the step and "
            "the prompt reading against them."
        )
    if leader is not None:
        rival = VLLM if leader == LLAMA_SERVER else LLAMA_SERVER
        text = (
            f"{_SHORT[leader]} served {causes.lead.times:.1f}× {_SHORT[rival]}'s total for the "
            "crowd. "
        )
        if causes.explained:
            return text + f"That lead follows from its {' and its '.join(parts[leader])}."
        return text + (
            "The step and the prompt reading do not both point its way, so what this "
            "page timed does not account for the whole lead."
        )
    said = " ".join(
        f"The {' and the '.join(named)} was {_SHORT[engine]}'s."
        for engine, named in parts.items()
        if named
    )
    if not said:
        return (
            "Neither the step nor the prompt reading separated the engines, and the crowd's "
            "totals came out alike."
        )
    if causes.explained:
        return said + " The two pulled opposite ways, and the crowd's totals came out alike."
    return said + (
        " Yet the crowd's totals came out alike, so what this page timed does not account for them."
    )


def takeaway_text(engines: EngineFindings, slot_found: SlotFindings) -> str:
    """The chapter's take-away, as far as its runs support each part: the crowd's totals, then
    the mechanisms the page measured behind them, and memory only as far as it bound."""
    text = (
        "The right engine depends on how many requests are in flight at once, and on "
        "which server runs the other engine. "
    )
    binding = engines.over_binding
    text += (
        f"Against a server that answers one request at a time, vLLM served "
        f"{binding.ratio:.1f}× the crowd's tokens. "
        if binding.compared is Compared.HIGHER
        else "Even a server that answers one request at a time was not clearly behind "
        "vLLM for this crowd. "
    )
    lead = engines.crowd_lead
    text += {
        Compared.HIGHER: (
            "With slots, llama.cpp's own server batched too, and vLLM still served "
            f"{lead.ratio:.1f}× its total. Here vLLM was the better engine for the "
            "crowd, though not the only one that batches."
        ),
        Compared.ALIKE: (
            "With slots, llama.cpp's own server served about as much as vLLM. So "
            '"the wrong engine for a crowd" held for the binding\'s server only.'
        ),
        Compared.LOWER: (
            "With slots, llama.cpp's own server served more than vLLM here. So \"the "
            "wrong engine for a crowd\" held for the binding's server only."
        ),
        Compared.UNTOLD: (
            "With slots, llama.cpp's own server was not told apart from vLLM. So "
            'this run supports "the wrong engine for a crowd" for the binding\'s '
            "server only."
        ),
    }[lead.compared]
    causes = CrowdCauses.of(engines, slot_found)
    memory = (
        "Memory did not bind in these runs, so handing it out block by block had nothing "
        "to win here."
        if causes.memory.bound is False
        else "This run cannot say whether memory bound, so it credits neither engine's way of "
        "holding the cache."
    )
    return (
        f"{text}\n\n{crowd_verdict_text(causes)}"
        + fold(
            f"{crowd_step_text(causes)}\n\n{crowd_prompt_text(causes)}\n\n{memory}",
            "The step, the prompt reading and memory",
        )
        + "\n\nMeasure on the hardware you will use, counting the set-up as well as the "
        "speed."
    )
