"""servelab.engines.placement: two servers side by side, the whole device, and starting them
together."""

from __future__ import annotations

import pytest

from servelab.engines import placement
from servelab.engines.placement import side_by_side
from servelab.engines.process import ServerStartError
from servelab.hardware import Device

CPU = Device(kind="cpu", name="test cpu")
T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))
TWO_T4 = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0, compute_capability=(7, 5))


def test_side_by_side_splits_cores_and_cache_or_refuses_one_core():
    chat, job = side_by_side(CPU, 2.0, cores=[0, 1])
    assert chat.env == {"VLLM_CPU_OMP_THREADS_BIND": "0"}
    assert job.env == {"VLLM_CPU_OMP_THREADS_BIND": "1"}
    assert chat.server_options == {"kv_cache_gib": 1.0}
    assert chat.described == "1 core (0) and 1 GiB of KV cache"
    small, _ = side_by_side(CPU, 0.1, cores=[0, 1])  # a crowded cache reads in MiB
    assert small.described == "1 core (0) and 51 MiB of KV cache"
    four = side_by_side(CPU, 2.0, cores=[3, 0, 2, 1])
    assert [h.env["VLLM_CPU_OMP_THREADS_BIND"] for h in four] == ["0,1", "2,3"]
    assert side_by_side(CPU, 2.0, cores=[0]) is None
    gpu, _ = side_by_side(T4, 2.0)
    assert gpu.server_options == {"gpu_memory_utilization": placement.GPU_SHARE}
    assert gpu.env == {}


def test_two_gpus_give_each_half_its_own_gpu_and_label_it():
    first, second = side_by_side(TWO_T4, 2.0)
    assert (first.env, second.env) == ({"CUDA_VISIBLE_DEVICES": "0"}, {"CUDA_VISIBLE_DEVICES": "1"})
    assert first.server_options == second.server_options == {}
    assert "GPU 1 of 2" in second.described
    assert placement.whole_device(TWO_T4).described == "GPU 0 of 2 (Tesla T4)"
    assert placement.whole_device(T4).described == "the whole GPU (Tesla T4)"


def test_a_whole_device_server_is_bound_to_every_core():
    from servelab.hardware import bind_env

    assert placement.whole_device(CPU, cores=[1, 0]).env == {"VLLM_CPU_OMP_THREADS_BIND": "0,1"}
    assert placement.whole_device(T4).env == {}
    with pytest.raises(ValueError):
        bind_env([])


class _Launch:
    """Records which thread started it, when its start began and ended, and whether that thread
    was alive when it stopped."""

    def __init__(self, fail: bool = False, device: Device = CPU) -> None:
        self.fail, self.device, self.thread, self.alive_at_stop = fail, device, None, None
        self.began = self.ended = None

    def start(self):
        import threading
        import time

        self.thread = threading.current_thread()
        self.began = time.monotonic()
        time.sleep(0.2)
        self.ended = time.monotonic()
        if self.fail:
            raise ServerStartError("vLLM exited with code 1 while starting.")
        return self

    def stop(self) -> None:
        self.alive_at_stop = self.thread is not None and self.thread.is_alive()


def test_gpu_servers_start_one_after_another_cpu_servers_at_once():
    gpu = [_Launch(device=T4), _Launch(device=T4)]
    with placement.running_together(gpu):
        assert gpu[1].began >= gpu[0].ended
    cpu = [_Launch(), _Launch()]
    with placement.running_together(cpu):
        assert cpu[1].began < cpu[0].ended


def test_servers_run_together_stay_tied_to_live_threads_until_stopped():
    import threading

    first, second = _Launch(), _Launch()
    with placement.running_together([first, second]) as running:
        assert running == [first, second]
        assert first.thread is not threading.current_thread()
    assert first.alive_at_stop and second.alive_at_stop
    broken, fine = _Launch(fail=True), _Launch()
    with pytest.raises(ServerStartError, match="server 0 of the 2 .* did not start: vLLM exited"):
        with placement.running_together([broken, fine]):
            pass
    assert fine.alive_at_stop is not None  # stopped although its partner failed


def test_servers_fit_together_on_a_cpu_and_within_one_cards_share():
    cpu = [placement.Server(device=CPU, model="m"), placement.Server(device=CPU, model="m")]
    assert placement.fit_together(cpu)
    assert not placement.fit_together([placement.Server(device=T4, model="m")] * 2)  # 0.9 each
    halves = [placement.Server(device=T4, model="m", gpu_memory_utilization=0.45)] * 2
    assert placement.fit_together(halves)
    assert not placement.fit_together(
        [*halves, placement.Server(device=T4, model="m", gpu_memory_utilization=0.1)]
    )
    apart = [
        placement.Server(device=TWO_T4, model="m", env={"CUDA_VISIBLE_DEVICES": card})
        for card in ("0", "1")
    ]
    assert placement.fit_together(apart)  # a card each


class _Recorded(placement.Server):
    """A server whose start and stop only say so, into a list shared by all of them."""

    def __init__(self, log: list[str], name: str, **options) -> None:
        super().__init__(model="m", **options)
        self.log, self.name = log, name

    def start(self) -> _Recorded:
        self.log.append(f"start {self.name}")
        return self

    def stop(self, grace: float = 15.0) -> None:
        self.log.append(f"stop {self.name}")


def test_a_server_starts_beside_the_running_ones_only_where_they_fit_together():
    log: list[str] = []
    first = _Recorded(log, "first", device=CPU)
    placement.start_beside(_Recorded(log, "second", device=CPU), running=[first])
    assert log == ["start second"]  # a CPU holds both
    log.clear()
    first = _Recorded(log, "first", device=T4)
    placement.start_beside(_Recorded(log, "second", device=T4), running=[first])
    assert log == ["stop first", "start second"]  # 0.9 and 0.9 of one card do not fit


def test_two_servers_with_a_card_share_each_fit_one_gpu():
    shared = [placement.Server(device=T4, model="m", **placement.card_share(T4))] * 2
    assert placement.fit_together(shared)
    assert placement.card_share(CPU) == {}


def test_a_server_makes_room_for_another_only_where_the_card_is_too_full(monkeypatch):
    log: list[str] = []
    on_cpu = _Recorded(log, "cpu", device=CPU)
    assert placement.with_room_for_another(on_cpu) is on_cpu and log == []
    halved = _Recorded(log, "half", device=T4, **placement.card_share(T4))
    assert placement.with_room_for_another(halved) is halved and log == []
    monkeypatch.setattr(placement.Server, "start", lambda self: log.append("start again"))
    whole = _Recorded(
        log,
        "whole",
        device=T4,
        gpu_memory_utilization=0.9,
        max_num_seqs=64,
        max_num_batched_tokens=8192,
        enable_prefix_caching=True,
    )
    again = placement.with_room_for_another(whole)
    assert log == ["stop whole", "start again"]
    assert again.flags == {**whole.flags, "gpu_memory_utilization": placement.GPU_SHARE}
    assert placement.fit_together([again, again.with_flags(max_num_batched_tokens=512)])


def test_a_server_with_other_flags_keeps_its_model_memory_and_environment():
    server = placement.Server(
        device=CPU,
        model="m",
        kv_cache_gib=1.5,
        max_num_seqs=8,
        env={"VLLM_CPU_OMP_THREADS_BIND": "0-1"},
        extra_args=["--x"],
    )
    server.model = "served-name"
    twin = server.with_flags(max_num_batched_tokens=256)
    assert twin.flags == {**server.flags, "max_num_batched_tokens": 256}
    assert (twin.model, twin.model_path, twin.extra_env, twin.extra_args) == (
        "served-name",
        "m",
        server.extra_env,
        ["--x"],
    )
    assert not twin.running and twin is not server
