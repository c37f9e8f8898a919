"""Chapter 08's words: the engines' story, the CPU's drift between engines and the files'
ceilings, each picked from the findings' verdicts and their figures."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
from servelab.lessons.findings_table import findings_table
from servelab.lessons.fold import fold
from servelab.lessons.guess import Aim, Unit
from servelab.lessons.prediction import page_story
from servelab.lessons.thresholds import ALIKE
from servelab.lessons.untold_words import cannot_tell, overlap
from servelab.lessons.when_not_to.against import Against
from servelab.lessons.when_not_to.ceilings import FileCeilings
from servelab.lessons.when_not_to.drift import FIGURES, DriftFindings
from servelab.lessons.when_not_to.findings import (
    LLAMA_F16,
    LLAMA_Q4,
    LLAMA_SERVER,
    VLLM,
    EngineFindings,
)
from servelab.lessons.when_not_to.slots_words import times_as_long


def _probes(found: DriftFindings) -> str:
    """The probes' medians, a row a moment, a column a figure with its unit."""
    head = ["Probe", *(f"{name.capitalize()} ({unit})" for name, unit, _ in FIGURES.values())]
    return findings_table(
        head,
        [
            [
                moment,
                *(
                    f"{getattr(pace, key).median:,.{digits}f}"
                    for key, (_, _, digits) in FIGURES.items()
                ),
            ]
            for moment, pace in found.pace.items()
        ],
    )


def drift_text(found: DriftFindings) -> str:
    """What the probes between engines say about the machine, as one or two sentences."""
    if found.drift is None:
        return (
            "The engines ran one after another, never together, so each range shows how "
            "steady one engine's runs were, not how far the machine's own speed drifted "
            "between engines."
        )
    first = next(iter(found.pace.values()))
    text = (
        f"The engines ran one after another, so the CPU was probed with no server running, "
        f"{first.gflops.n} times at each of {len(found.pace)} moments (medians):\n\n"
        f"{_probes(found)}\n\n"
    )
    move = found.largest
    if found.drift is Compared.ALIKE or move is None:
        return text + (
            f"Every probe stayed within {ALIKE:.0%} of the first: as far as probes "
            "between the engines can see, the machine held its speed, so a wider gap "
            "between engines is theirs rather than the machine's."
        )
    name, unit, digits = FIGURES[move.figure]
    values = (
        f"{move.first.median:,.{digits}f} to {move.later.median:,.{digits}f} {unit} "
        f"({move.against.share_moved:.0%})"
    )
    if found.drift is Compared.UNTOLD:
        return text + (
            f"Its {name} moved from {values} by the probe {move.moment}, but "
            + cannot_tell("whether the machine itself drifted.", overlap("probes'"), who="they")
        )
    way = "fell" if found.drift is Compared.LOWER else "rose"
    return text + (
        f"Its {name} {way} from {values} by the probe {move.moment}, beyond the "
        "probes' ranges: the machine itself changed speed between engines, so part "
        "of a gap between them may be when each ran rather than the engines."
    )


def ceiling_prediction_text(found: FileCeilings, smaller: str, larger: str) -> str:
    """The prediction, before the runs: each file's ceiling, and the ratio the sizes set."""
    rows = [
        [engine, f"{found.megabytes[engine]:,.0f}", f"{found.ceiling(engine):,.0f}"]
        for engine in found.megabytes
    ]
    return (
        f"If reading the weights were all a token cost, {smaller} would stream "
        f"**{found.size_ratio(smaller, larger):.1f}×** as fast as {larger}, the ratio of "
        f"their sizes. At the {found.bandwidth_gb_s:.1f} GB/s this CPU copies, one stream "
        "could make at most:\n\n"
        + findings_table(["Engine", "Weights (MB)", "Ceiling (tok/s)"], rows)
    )


def ceiling_check_text(found: FileCeilings, smaller: str, larger: str) -> str:
    """The measured speeds against their ceilings and the size ratio."""
    if found.measured is None:
        raise ValueError("the check needs each engine's measured speed")
    rows = [
        [
            engine,
            f"{found.ceiling(engine):,.0f}",
            f"{found.measured[engine]:,.0f}",
            f"{found.share(engine):.0%}",
        ]
        for engine in found.megabytes
    ]
    table = findings_table(
        ["Engine", "Ceiling (tok/s)", "One user (tok/s)", "Share of ceiling"], rows
    )
    ratio = (
        f"Against {larger}, {smaller} streamed {found.speed_ratio(smaller, larger):.1f}× as "
        f"fast, for {found.size_ratio(smaller, larger):.1f}× fewer bytes a token."
    )
    if not found.near:
        lead, closing = (
            "**No engine came near its ceiling**",
            (
                "So reading the weights is not what set one user's pace here: the smaller file "
                "bought less than its size."
            ),
        )
        ratio += (
            " Each token's other work (the arithmetic, unpacking the blocks, the engine's "
            "own steps) took most of its time."
        )
    elif len(found.near) == len(found.megabytes):
        lead, closing = (
            "**Every engine ran near its ceiling**",
            (
                "One user waited mostly on memory, and fewer bytes a token bought speed almost in "
                "proportion."
            ),
        )
    else:
        lead, closing = (
            f"**Only {', '.join(found.near)} ran near its ceiling**",
            ("The others spent most of each token on work other than reading the weights."),
        )
    return f"{lead} with one user.\n\n{table}\n\n{closing}" + fold(ratio)


def ceiling_prediction(ceilings: FileCeilings) -> str:
    """The prediction from the bytes, the packed file against the 16-bit one."""
    return ceiling_prediction_text(ceilings, LLAMA_Q4, LLAMA_F16)


def ceiling_check(ceilings: FileCeilings, engines: EngineFindings) -> str:
    """The ceilings against one user's measured speed (the median) on each engine."""
    measured = {engine: engines.one[engine].median for engine in ceilings.megabytes}
    return ceiling_check_text(ceilings.with_measured(measured), LLAMA_Q4, LLAMA_F16)


def engines_title(engines: EngineFindings) -> str:
    """The bars' title: the fastest engine alone and the one that served the crowd the most."""
    alone = max(engines.one, key=lambda engine: engines.one[engine].median)
    crowd = max(engines.crowd, key=lambda engine: engines.crowd[engine].median)
    return (
        f"Alone: {alone} fastest ({engines.one[alone].median:.0f} tok/s); "
        f"{engines.facts.many} users: {crowd} serves the most "
        f"({engines.crowd[crowd].median:.0f} tok/s)"
    )


def _as_fast(against: Against) -> str:
    """``a`` against ``b`` in words: "2.1× as fast as", "1.4× slower than" or "about as fast
    as"."""
    if against.compared is Compared.ALIKE:
        return "about as fast as"
    if against.compared is Compared.UNTOLD:
        return "not clearly faster or slower than"
    if against.compared is Compared.HIGHER:
        return f"{against.times:.1f}× as fast as"
    return f"{against.times:.1f}× slower than"


def _runs(spread: Spread) -> str:
    """How many runs each figure is the median of, as a sentence; empty for one run."""
    return f" Each is the median of {spread.n} runs." if spread.n > 1 else ""


def _where_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (
        f"llama.cpp ran on {facts.llama_device} in all three of its runs; vLLM ran on "
        f"{facts.vllm_device}. "
    )
    drift = drift_text(DriftFindings(found.pace)) + _falling_text(found)
    if facts.vllm_on_gpu:
        return (
            "**Where each engine ran.** "
            + text
            + "So every comparison between the two engines below is also a comparison "
            "between a CPU and a GPU; only the llama.cpp runs compare like with like: "
            "they separate the file format, and the slots, from the engine." + fold(drift)
        )
    return fold(
        text + "Same processor, same cores, same model, same requests: the engines and "
        "formats differ.\n\n" + drift,
        "Where each engine ran",
    )


def _falling_text(found: EngineFindings) -> str:
    """The loads whose runs fell one after another, and what that order suggests."""
    if not found.falling:
        return ""
    loads = "; ".join(
        f"{engine} {'alone' if users == 1 else f'with {users} users'}: "
        f"{', '.join(f'{speed:.0f}' for speed in runs)} tokens/s"
        for (engine, users), runs in found.falling.items()
    )
    return (
        f" Within one engine, though, the order of the runs tells something their range "
        f"does not. These loads fell run after run ({loads}), so the machine or the "
        "server may have slowed while they ran, and their medians depend on when they ran."
    )


def _setup_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (
        f"llama.cpp answered {facts.start_s[LLAMA_Q4]:.1f} s after it was launched and vLLM "
        f"after {facts.start_s[VLLM]:.1f} s. On disk vLLM needed "
        f"{found.disk_mb['vLLM']:,.0f} MB of packages and model files, llama.cpp "
        f"{found.disk_mb['llama.cpp']:,.0f} MB. "
    )
    if found.first_start_s is None or facts.compile_s is None:
        text += (
            "How long llama-cpp-python took to compile was not recorded here, so the "
            "set-up comparison leaves out its build. "
        )
    else:
        text += (
            f"But PyPI has no compiled llama-cpp-python for the CPU: it was built from source "
            f"in {facts.compile_s / 60:.1f} minutes on this machine, so the first start of "
            f"llama.cpp took about {found.first_start_s / 60:.1f} minutes in all"
        )
        text += (
            ", longer than vLLM's start; later starts skip the build. "
            if found.build_slower
            else ", still less than vLLM's start. "
        )
    if facts.server_compile_s is not None:
        text += (
            f"llama-server, compiled from the same source onto the binding's libraries, "
            f"took {facts.server_compile_s / 60:.1f} minutes more, once, and answered "
            f"{facts.start_s[LLAMA_SERVER]:.1f} s after its launch. "
        )
    return fold(
        text
        + (
            "vLLM's CPU engine cannot load the 4-bit GGUF file, so it serves a bf16 "
            f"copy, computing in {facts.vllm_dtype} (vLLM on a GPU has experimental "
            "GGUF loading, not used here)."
        ),
        "Set-up and start",
    )


def _one_user_table(found: EngineFindings) -> str:
    """One user's speed on each engine and file, with its range and bits per weight."""
    facts = found.facts
    rows = [
        ("llama-cpp-python, Q4_1 file", LLAMA_Q4, facts.q4_bits),
        ("llama-cpp-python, F16 file", LLAMA_F16, facts.f16_bits),
        ("llama-server, Q4_1 file", LLAMA_SERVER, facts.q4_bits),
        (f"vLLM, {facts.vllm_dtype}", VLLM, float(facts.vllm_bits)),
    ]
    return (
        findings_table(
            ["Engine and weights", "Bits per weight", "One user (tokens/s)"],
            [[name, f"{bits:.1f}", found.one[engine].with_range()] for name, engine, bits in rows],
        )
        + "\n\n"
    )


def _one_user_text(found: EngineFindings) -> str:
    facts = found.facts
    runs = _runs(found.one[LLAMA_Q4]).strip()
    backing = (
        f"The Q4_1 file stores {facts.q4_bits:.1f} bits per weight, its block scales "
        f"included, against {facts.f16_bits:.1f} for F16 ({facts.bytes_f16_over_q4:.1f}× "
        "the bytes to read per token). On the same engine the packed file was "
        f"{_as_fast(found.q4_vs_f16)} the 16-bit one. llama-server, the same kernels on "
        f"the same packed file, was {_as_fast(found.server_alone)} llama-cpp-python's "
        "server. "
    )
    if facts.vllm_on_gpu:
        lead, rest = (
            f"vLLM on the GPU was {_as_fast(found.vllm_vs_f16)} llama.cpp's F16 run on the CPU.",
            "That gap is mostly the device, not the engine.",
        )
    elif facts.vllm_bits != 16:
        backing += (
            f"On a CPU without bf16 instructions servelab picks {facts.vllm_dtype}, as "
            f"vLLM's bf16 kernels are far slower there. llama.cpp's F16 run was "
            f"{_as_fast(found.f16_vs_vllm)} vLLM."
        )
        lead, rest = (
            (
                "llama.cpp led for one user.",
                "But the two engines read different "
                "numbers of bytes per weight here. So this run does not say how much of "
                "the lead is the engine and how much the file format.",
            )
            if found.q4_leads
            else ("Even the 4-bit file did not put llama.cpp ahead for one user in this run.", "")
        )
    elif not found.q4_leads:
        lead, rest = (
            "Even the 4-bit file did not put llama.cpp ahead for one user in this run.",
            f"At 16 bits each, llama.cpp was {_as_fast(found.f16_vs_vllm)} vLLM.",
        )
    elif found.q4_vs_f16.compared is not Compared.HIGHER:
        lead, rest = (
            "llama.cpp led for one user.",
            f"At 16 bits each, it was "
            f"{_as_fast(found.f16_vs_vllm)} vLLM. But its two files were not told "
            "apart beyond the runs' spread, so this run does not say how much of the "
            "lead the smaller file gave.",
        )
    else:
        lead, rest = {
            Compared.ALIKE: (
                "llama.cpp's lead for one user came from the smaller file, not from the engine.",
                "At 16 bits each, the two were about as fast.",
            ),
            Compared.HIGHER: (
                "llama.cpp led for one user at equal precision too, and the 4-bit "
                "file widened the lead.",
                f"At 16 bits each, it was {_as_fast(found.f16_vs_vllm)} vLLM.",
            ),
            Compared.LOWER: (
                "At equal precision vLLM was the quicker engine here, and the "
                "4-bit format alone put llama.cpp ahead.",
                f"At 16 bits each, llama.cpp was {_as_fast(found.f16_vs_vllm)} vLLM.",
            ),
            Compared.UNTOLD: (
                "The 4-bit file is what put llama.cpp ahead for one user.",
                "At equal precision this run cannot tell the engines apart.",
            ),
        }[found.f16_vs_vllm.compared]
    return f"{lead}\n\n{_one_user_table(found)}{runs} {rest}".rstrip() + fold(backing)


def _many_text(found: EngineFindings) -> str:
    many = found.facts.many
    rows = [
        [
            name,
            found.crowd[engine].with_range(),
            f"{found.wait_p50_s[engine]:.1f}",
            f"{found.wait_p99_s[engine]:.1f}",
        ]
        for name, engine in (
            (f"llama-server, {many} slots", LLAMA_SERVER),
            ("vLLM", VLLM),
            ("llama-cpp-python's server", LLAMA_Q4),
        )
    ]
    table = findings_table(
        [
            f"{many} users at once",
            "Total (tokens/s)",
            "Median first token (s)",
            "Unluckiest first token (s)",
        ],
        rows,
    )
    slots = found.slots_over_binding
    backing = {
        Compared.HIGHER: (
            f"llama-server's slots served {slots.ratio:.1f}× the binding's total. "
            "It ran the same kernels on the same file, so the gap is batching "
            "alone: the binding answers one request after another."
        ),
        Compared.ALIKE: (
            "llama-server served about as much as the binding, so its slots gained "
            "nothing on this device."
        ),
        Compared.LOWER: "llama-server served less than the binding in this run.",
        Compared.UNTOLD: (
            "llama-server and the binding were not told apart beyond the runs' spread."
        ),
    }[slots.compared]
    lead = found.crowd_lead
    finding, rest = {
        Compared.HIGHER: (
            f"vLLM served {lead.ratio:.1f}× llama-server's total, though both put "
            "every running request into each step.",
            "The sections below measure what is left between them.",
        ),
        Compared.ALIKE: (
            "vLLM and llama-server served about as much.",
            "Once llama.cpp batches, the crowd alone does not separate the engines here.",
        ),
        Compared.LOWER: (
            f"With its slots, llama-server served {lead.times:.1f}× vLLM's total.",
            "llama.cpp was the better engine for this crowd on this device.",
        ),
        Compared.UNTOLD: (
            f"vLLM's median total was {lead.ratio:.1f}× llama-server's, but "
            + overlap("runs'")
            + ".",
            "So this run cannot say which served more.",
        ),
    }[lead.compared]
    return f"{finding}\n\n{table}\n\n{_runs(found.crowd[VLLM]).strip()} {rest}".replace(
        "\n\n ", "\n\n"
    ) + fold(backing, "The slots against one request at a time")


def _first_token_clause(found: EngineFindings) -> str:
    """Whose first token came sooner for one user alone, beyond the runs' spread."""
    q4, vllm = found.first_alone[LLAMA_Q4], found.first_alone[VLLM]
    if found.vllm_first_alone is Compared.LOWER:
        return (
            f" But vLLM's first token came sooner: {vllm.with_range(2, ' s')} against "
            f"{q4.with_range(2, ' s')} on llama.cpp."
        )
    both = f"{q4.with_range(2, ' s')} on llama.cpp against {vllm.with_range(2, ' s')} on vLLM"
    if found.vllm_first_alone is Compared.HIGHER:
        return f" Its first token came sooner too: {both}."
    return f" Their first tokens were not told apart: {both}."


def _guidance_text(found: EngineFindings) -> str:
    where = " (on different devices, as said above)" if found.facts.vllm_on_gpu else ""
    binding = found.over_binding
    if found.alone_llama:
        alone = Against(found.one[LLAMA_Q4], found.one[VLLM])
        pace = f"{alone.ratio:.1f}× as quickly as vLLM" if found.q4_leads else "at least as quickly"
        text = (
            "Ask how many requests will be in flight at the same moment. For one person at "
            f"a time, a packed file on llama.cpp streamed {pace} here."
            f"{_first_token_clause(found)} Once built, llama.cpp starts in seconds. "
        )
    else:
        text = "llama.cpp did not serve one user faster than vLLM in this run. "
    if binding.compared is Compared.HIGHER:
        text = text.rstrip() + (
            "\n\nFor a crowd, a server that answers one request at a time is the wrong tool. "
            f"vLLM served {binding.ratio:.1f}× llama-cpp-python's total{where}. "
        )
    lead = found.crowd_lead
    return (
        text
        + {
            Compared.HIGHER: (
                "With slots, llama.cpp's own server narrowed that gap but did not close "
                f"it: vLLM still served {lead.ratio:.1f}× as much{where}."
            ),
            Compared.ALIKE: (
                "With slots, llama.cpp's own server served about as much as vLLM for "
                f"this crowd{where}. So the crowd alone is no reason to leave llama.cpp."
            ),
            Compared.LOWER: (
                "With slots, llama.cpp's own server served more than vLLM for this crowd"
                f"{where}. So the crowd alone is no reason to leave llama.cpp."
            ),
            Compared.UNTOLD: (
                "With slots, llama.cpp's own server was not told apart from vLLM for "
                f"this crowd{where}. So this run gives no reason to leave llama.cpp for "
                "the crowd alone."
            ),
        }[lead.compared]
        + fold(_prompt_alone_text(found), "A fresh prompt, read alone")
    )


def _prompt_alone_text(found: EngineFindings) -> str:
    """llama-server's and vLLM's first token alone: how long each took to read a fresh prompt
    of the crowd's size, the first of the two mechanisms the page weighs against the crowd."""
    return (
        f"Alone, a first token for a fresh prompt of the crowd's size took "
        f"{times_as_long(found.prompt_alone, 2, ' s')}. The last sections time each "
        "engine's step with the crowd in it and weigh the two."
    )


def story(engines: EngineFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown: the context folded, then a paragraph a finding."""
    many = engines.facts.many
    measured = (
        f"one user saw {engines.one[LLAMA_Q4].median:.0f} tokens/s on llama.cpp (Q4_1) "
        f"and {engines.one[VLLM].median:.0f} on vLLM; {many} users got "
        f"{engines.crowd[VLLM].median:.0f} tokens/s in total from vLLM and "
        f"{engines.crowd[LLAMA_SERVER].median:.0f} from llama-server."
    )
    aims = [
        Aim("llama.cpp against vLLM for one user", engines.alone_lead.ratio, Unit.TIMES),
        Aim(f"vLLM against llama-server for {many} users", engines.crowd_lead.ratio, Unit.TIMES),
        Aim(
            "llama-server's slots against one request at a time",
            engines.slots_over_binding.ratio,
            Unit.TIMES,
        ),
    ]
    found = {
        "One user": _one_user_text(engines),
        f"{many} users": _many_text(engines),
        "The guidance": _guidance_text(engines),
    }
    return "\n\n".join(
        [
            page_story(prediction, measured, [], aims),
            (_where_text(engines) + _setup_text(engines)).removeprefix("\n\n"),
            *(f"**{title}.** {text}" for title, text in found.items()),
        ]
    )
