"""Chapter 08's words: the engines' story, the CPU's drift between engines and the files'
ceilings, each picked from the findings' verdicts and their figures."""

from __future__ import annotations

from servelab.bench.spread import Spread
from servelab.lessons.compare import Compared
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

TOKENS_PER_S = " tokens/s"


def _series(found: DriftFindings, figure: str) -> str:
    digits = FIGURES[figure][2]
    return ", ".join(f"{getattr(pace, figure).median:,.{digits}f}"
                     for pace in found.pace.values())


def drift_text(found: DriftFindings) -> str:
    """What the probes between engines say about the machine, as one or two sentences."""
    if found.drift is None:
        return ("The engines ran one after another, never together, so each range shows how "
                "steady one engine's runs were, not how far the machine's own speed drifted "
                "between engines.")
    first = next(iter(found.pace.values()))
    text = (f"The engines ran one after another, so the CPU was probed with no server running, "
            f"{first.gflops.n} times at each of {len(found.pace)} moments "
            f"({', '.join(found.pace)}): its copy bandwidth read {_series(found, 'bandwidth_gb_s')}"
            f" GB/s and its float32 matrix multiply {_series(found, 'gflops')} GFLOP/s (medians). ")
    move = found.largest
    if found.drift is Compared.ALIKE or move is None:
        return text + (f"Every probe stayed within {ALIKE:.0%} of the first: as far as probes "
                       "between the engines can see, the machine held its speed, so a wider gap "
                       "between engines is theirs rather than the machine's.")
    name, unit, digits = FIGURES[move.figure]
    values = (f"{move.first.median:,.{digits}f} to {move.later.median:,.{digits}f} {unit} "
              f"({abs(move.ratio - 1):.0%})")
    if found.drift is Compared.UNTOLD:
        return text + (f"Its {name} moved from {values} by the probe {move.moment}, but "
                       + cannot_tell("whether the machine itself drifted.", overlap("probes'"),
                                     who="they"))
    way = "fell" if found.drift is Compared.LOWER else "rose"
    return text + (f"Its {name} {way} from {values} by the probe {move.moment}, beyond the "
                   "probes' ranges: the machine itself changed speed between engines, so part "
                   "of a gap between them may be when each ran rather than the engines.")


def ceiling_prediction_text(found: FileCeilings, smaller: str, larger: str) -> str:
    """The prediction, before the runs: each file's ceiling, and the ratio the sizes set."""
    ceilings = ", ".join(f"{engine} {found.ceiling(engine):,.0f} tok/s"
                         for engine in found.megabytes)
    return (f"At the {found.bandwidth_gb_s:.1f} GB/s this CPU copies, one stream could make at "
            f"most: {ceilings}. If reading the weights were all a token cost, {smaller} would "
            f"stream **{found.size_ratio(smaller, larger):.1f}×** as fast as {larger}, the "
            "ratio of their sizes.")


def ceiling_check_text(found: FileCeilings, smaller: str, larger: str) -> str:
    """The measured speeds against their ceilings and the size ratio."""
    if found.measured is None:
        raise ValueError("the check needs each engine's measured speed")
    shares = ", ".join(f"{engine} {found.share(engine):.0%}" for engine in found.megabytes)
    ratio = found.speed_ratio(smaller, larger)
    sizes = found.size_ratio(smaller, larger)
    text = (f"measured against it, one user ran at {shares}. Against {larger}, {smaller} "
            f"streamed {ratio:.1f}× as fast, for {sizes:.1f}× fewer bytes a token. ")
    if not found.near:
        return ("**No engine came near its ceiling**: " + text + "So reading the weights is not "
                "what set one user's pace here. Each token's other work (the arithmetic, "
                "unpacking the blocks, the engine's own steps) took most of its time. The "
                "smaller file bought less than its size.")
    if len(found.near) == len(found.megabytes):
        return ("**Every engine ran near its ceiling**: " + text + "One user waited mostly on "
                "memory, and fewer bytes a token bought speed almost in proportion.")
    return (f"**Only {', '.join(found.near)} ran near its ceiling**: " + text + "The others "
            "spent most of each token on work other than reading the weights.")


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
    return (f"Alone: {alone} fastest ({engines.one[alone].median:.0f} tok/s); "
            f"{engines.facts.many} users: {crowd} serves the most "
            f"({engines.crowd[crowd].median:.0f} tok/s)")


def _as_fast(against: Against) -> str:
    """``a`` against ``b`` in words: "2.1× as fast as", "1.4× slower than" or "about as fast
    as"."""
    if against.compared is Compared.ALIKE:
        return "about as fast as"
    if against.compared is Compared.UNTOLD:
        return "not clearly faster or slower than"
    if against.compared is Compared.HIGHER:
        return f"{against.ratio:.1f}× as fast as"
    return f"{1 / against.ratio:.1f}× slower than"


def _runs(spread: Spread) -> str:
    """How many runs each figure is the median of, as a sentence; empty for one run."""
    return f" Each is the median of {spread.n} runs." if spread.n > 1 else ""


def _where_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (f"llama.cpp ran on {facts.llama_device} in all three of its runs; vLLM ran on "
            f"{facts.vllm_device}. ")
    drift = drift_text(DriftFindings(found.pace))
    if facts.vllm_on_gpu:
        return text + ("So every comparison between the two engines below is also a comparison "
                       "between a CPU and a GPU; only the llama.cpp runs compare like with "
                       "like: they separate the file format, and the slots, from the engine. "
                       + drift)
    return text + ("Same processor, same cores, same model, same requests: the engines and formats "
                   "differ. " + drift)


def _falling_text(found: EngineFindings) -> str:
    """The loads whose runs fell one after another, and what that order suggests."""
    if not found.falling:
        return ""
    loads = "; ".join(
        f"{engine} {'alone' if users == 1 else f'with {users} users'}: "
        f"{', '.join(f'{speed:.0f}' for speed in runs)} tokens/s"
        for (engine, users), runs in found.falling.items())
    return (f" Within one engine, though, the order of the runs tells something their range "
            f"does not. These loads fell run after run ({loads}), so the machine or the "
            "server may have slowed while they ran, and their medians depend on when they ran.")


def _setup_text(found: EngineFindings) -> str:
    facts = found.facts
    text = (f"llama.cpp answered {facts.start_s[LLAMA_Q4]:.1f} s after it was launched and vLLM "
            f"after {facts.start_s[VLLM]:.1f} s. On disk vLLM needed "
            f"{found.disk_mb['vLLM']:,.0f} MB of packages and model files, llama.cpp "
            f"{found.disk_mb['llama.cpp']:,.0f} MB. ")
    if found.first_start_s is None or facts.compile_s is None:
        text += ("How long llama-cpp-python took to compile was not recorded here, so the "
                 "set-up comparison leaves out its build. ")
    else:
        text += (f"But PyPI has no compiled llama-cpp-python for the CPU: it was built from source "
                 f"in {facts.compile_s / 60:.1f} minutes on this machine, so the first start of "
                 f"llama.cpp took about {found.first_start_s / 60:.1f} minutes in all")
        text += (", longer than vLLM's start; later starts skip the build. "
                 if found.build_slower else ", still less than vLLM's start. ")
    if facts.server_compile_s is not None:
        text += (f"llama-server, compiled from the same source onto the binding's libraries, "
                 f"took {facts.server_compile_s / 60:.1f} minutes more, once, and answered "
                 f"{facts.start_s[LLAMA_SERVER]:.1f} s after its launch. ")
    return text + ("vLLM's CPU engine cannot load the 4-bit GGUF file, so it serves a bf16 copy, "
                   f"computing in {facts.vllm_dtype} (vLLM on a GPU has experimental GGUF "
                   "loading, not used here).")


def _one_user_text(found: EngineFindings) -> str:
    facts = found.facts
    q4, f16, vllm = (found.one[name] for name in (LLAMA_Q4, LLAMA_F16, VLLM))
    q4_s, f16_s, vllm_s = (speed.with_range(unit=TOKENS_PER_S) for speed in (q4, f16, vllm))
    text = (f"One user saw {q4_s} from llama.cpp on the Q4_1 file and {f16_s} on the F16 file. "
            f"From vLLM the user saw {vllm_s}.{_runs(q4)} ")
    backing = (f"The Q4_1 file stores {facts.q4_bits:.1f} bits per weight, its block scales "
               f"included, against {facts.f16_bits:.1f} for F16 ({facts.bytes_f16_over_q4:.1f}× "
               "the bytes to read per token). On the same engine the packed file was "
               f"{_as_fast(found.q4_vs_f16)} the 16-bit one. llama-server, the same kernels on "
               f"the same packed file, gave {found.one[LLAMA_SERVER].with_range(unit=TOKENS_PER_S)}"
               f": {_as_fast(found.server_alone)} llama-cpp-python's server. ")
    if facts.vllm_on_gpu:
        return text + (f"vLLM on the GPU was {_as_fast(found.vllm_vs_f16)} llama.cpp's F16 run "
                       "on the CPU: that gap is mostly the device, not the engine.") + fold(backing)
    if facts.vllm_bits != 16:
        text += f"vLLM computed in {facts.vllm_dtype}, {facts.vllm_bits} bits per weight. "
        backing += (f"On a CPU without bf16 instructions servelab picks {facts.vllm_dtype}, as "
                    f"vLLM's bf16 kernels are far slower there. llama.cpp's F16 run was "
                    f"{_as_fast(found.f16_vs_vllm)} vLLM.")
        if found.q4_leads:
            return text + ("So llama.cpp led for one user. But the two engines read different "
                           "numbers of bytes per weight here. So this run does not say how much "
                           "of the lead is the engine and how much the file format."
                           ) + fold(backing)
        return text + ("Even the 4-bit file did not put llama.cpp ahead for one user in this "
                       "run.") + fold(backing)
    text += f"At 16 bits each, llama.cpp was {_as_fast(found.f16_vs_vllm)} vLLM. "
    if not found.q4_leads:
        return text + ("Even the 4-bit file did not put llama.cpp ahead for one user in this "
                       "run.") + fold(backing)
    if found.q4_vs_f16.compared is not Compared.HIGHER:
        return text + ("So llama.cpp led for one user. But its two files were not told apart "
                       "beyond the runs' spread, so this run does not say how much of the lead "
                       "the smaller file gave.") + fold(backing)
    return text + {
        Compared.ALIKE: "So llama.cpp's lead for one user came from the smaller file, not from the "
                    "engine.",
        Compared.HIGHER: "So llama.cpp led for one user at equal precision too, and the 4-bit file "
                     "widened the lead.",
        Compared.LOWER: "So at equal precision vLLM was the quicker engine here, and the 4-bit "
                     "format alone put llama.cpp ahead.",
        Compared.UNTOLD: "At equal precision this run cannot tell the engines apart. The 4-bit "
                      "file is what put llama.cpp ahead.",
    }[found.f16_vs_vllm.compared] + fold(backing)


def _many_text(found: EngineFindings) -> str:
    many = found.facts.many
    vllm_s, server_s, binding_s = (found.crowd[name].with_range(unit=TOKENS_PER_S)
                                   for name in (VLLM, LLAMA_SERVER, LLAMA_Q4))
    vllm_w, server_w, binding_w = (
        f"{found.wait_p50_s[name]:.1f} s (the unluckiest {found.wait_p99_s[name]:.1f} s)"
        for name in (VLLM, LLAMA_SERVER, LLAMA_Q4))
    waits = f"{vllm_w} on vLLM, {server_w} on llama-server and {binding_w} on the binding"
    text = (f"With {many} users at once, vLLM produced {vllm_s} in total. With {many} slots, "
            f"llama-server produced {server_s}, and llama-cpp-python's server {binding_s}."
            f"{_runs(found.crowd[VLLM])} ")
    slots = found.slots_over_binding
    backing = f"The median user waited for a first token {waits}. " + {
        Compared.HIGHER: (f"llama-server's slots served {slots.ratio:.1f}× the binding's total. "
                          "It ran the same kernels on the same file, so the gap is batching "
                          "alone: the binding answers one request after another."),
        Compared.ALIKE: ("llama-server served about as much as the binding, so its slots gained "
                         "nothing on this device."),
        Compared.LOWER: "llama-server served less than the binding in this run.",
        Compared.UNTOLD: ("llama-server and the binding were not told apart beyond the runs' "
                          "spread."),
    }[slots.compared]
    lead = found.crowd_lead
    return text + {
        Compared.HIGHER: (f"vLLM served {lead.ratio:.1f}× llama-server's total, though both "
                          "put every running request into each step. The sections below measure "
                          "what is left between them."),
        Compared.ALIKE: ("vLLM and llama-server served about as much. Once llama.cpp batches, the "
                         "crowd alone does not separate the engines here."),
        Compared.LOWER: (f"With its slots, llama-server served {1 / lead.ratio:.1f}× vLLM's total. "
                         "llama.cpp was the better engine for this crowd on this device."),
        Compared.UNTOLD: (f"vLLM's median total was {lead.ratio:.1f}× llama-server's, but "
                          + overlap("runs'") + ". So this run cannot say which served more."),
    }[lead.compared] + fold(backing, "The waits, and the slots against one at a time")


def _first_token_clause(found: EngineFindings) -> str:
    """Whose first token came sooner for one user alone, beyond the runs' spread."""
    q4, vllm = found.first_alone[LLAMA_Q4], found.first_alone[VLLM]
    if vllm.below(q4):
        return (f" But vLLM's first token came sooner: {vllm.with_range(2, ' s')} against "
                f"{q4.with_range(2, ' s')} on llama.cpp.")
    both = f"{q4.with_range(2, ' s')} on llama.cpp against {vllm.with_range(2, ' s')} on vLLM"
    if q4.below(vllm):
        return f" Its first token came sooner too: {both}."
    return f" Their first tokens were not told apart: {both}."


def _guidance_text(found: EngineFindings) -> str:
    where = " (on different devices, as said above)" if found.facts.vllm_on_gpu else ""
    binding = found.over_binding
    if found.alone_llama:
        alone = Against(found.one[LLAMA_Q4], found.one[VLLM])
        pace = (f"{alone.ratio:.1f}× as quickly as vLLM" if found.q4_leads
                else "at least as quickly")
        text = ("Ask how many requests will be in flight at the same moment. For one person at "
                f"a time, a packed file on llama.cpp streamed {pace} here."
                f"{_first_token_clause(found)} Once built, llama.cpp starts in seconds. ")
    else:
        text = "llama.cpp did not serve one user faster than vLLM in this run. "
    if binding.compared is Compared.HIGHER:
        text = text.rstrip() + (
            "\n\nFor a crowd, a server that answers one request at a time is the wrong tool. "
            f"vLLM served {binding.ratio:.1f}× llama-cpp-python's total{where}. ")
    lead = found.crowd_lead
    return text + {
        Compared.HIGHER: ("With slots, llama.cpp's own server narrowed that gap but did not close "
                          f"it: vLLM still served {lead.ratio:.1f}× as much{where}."),
        Compared.ALIKE: ("With slots, llama.cpp's own server served about as much as vLLM for "
                         f"this crowd{where}. So the crowd alone is no reason to leave llama.cpp."),
        Compared.LOWER: ("With slots, llama.cpp's own server served more than vLLM for this crowd"
                         f"{where}. So the crowd alone is no reason to leave llama.cpp."),
        Compared.UNTOLD: ("With slots, llama.cpp's own server was not told apart from vLLM for "
                          f"this crowd{where}. So this run gives no reason to leave llama.cpp for "
                          "the crowd alone."),
    }[lead.compared] + fold(_prompt_alone_text(found), "A fresh prompt, read alone")


def _prompt_alone_text(found: EngineFindings) -> str:
    """llama-server's and vLLM's first token alone: how long each took to read a fresh prompt
    of the crowd's size, the first of the two mechanisms the page weighs against the crowd."""
    prompt = found.prompt_alone
    server, vllm = (found.first_alone[name].with_range(2, " s") for name in (LLAMA_SERVER, VLLM))
    verdict = {
        Compared.HIGHER: f"{prompt.ratio:.1f}× as long on llama-server",
        Compared.LOWER: f"{1 / prompt.ratio:.1f}× as long on vLLM",
        Compared.ALIKE: "about as long on both",
        Compared.UNTOLD: "not told apart beyond the runs' spread",
    }[prompt.compared]
    return (f"Alone, a first token for a fresh prompt of the crowd's size took {server} on "
            f"llama-server and {vllm} on vLLM: {verdict}. The last sections time each engine's "
            "step with the crowd in it and weigh the two.")


def story(engines: EngineFindings, prediction: str) -> str:
    """The page's interpretation, in Markdown, from the engines' findings."""
    measured = (f"one user saw {engines.one[LLAMA_Q4].median:.0f} tokens/s on llama.cpp (Q4_1) "
                f"and {engines.one[VLLM].median:.0f} on vLLM. With {engines.facts.many} users vLLM "
                f"produced {engines.crowd[VLLM].median:.0f} tokens/s in total against "
                f"{engines.crowd[LLAMA_SERVER].median:.0f} on llama-server and "
                f"{engines.crowd[LLAMA_Q4].median:.0f} on llama-cpp-python's server.")
    aims = [Aim("llama.cpp against vLLM for one user", engines.alone_lead.ratio, Unit.TIMES),
            Aim(f"vLLM against llama-server for {engines.facts.many} users",
                engines.crowd_lead.ratio, Unit.TIMES),
            Aim("llama-server's slots against one request at a time",
                engines.slots_over_binding.ratio, Unit.TIMES)]
    return page_story(prediction, measured, [
        ("Where each engine ran", _where_text(engines) + _falling_text(engines)),
        ("Set-up and start", _setup_text(engines)),
        ("One user", _one_user_text(engines)),
        (f"{engines.facts.many} users", _many_text(engines)),
        ("The guidance", _guidance_text(engines)),
    ], aims)
