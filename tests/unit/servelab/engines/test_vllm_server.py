"""Server pieces that need no engine: flags, capacity parsing, ports, device choice."""

import shlex
import socket
import sys

import pytest

from servelab import hardware
from servelab.engines import vllm_server as server
from servelab.engines.process import free_port
from servelab.engines.vllm_server import CapacityNotFound, Launch, Server, parse_capacity
from servelab.hardware import Device, default_dtype

CPU = Device(kind="cpu", name="test CPU")
T4 = Device(kind="cuda", name="Tesla T4", memory_gib=15.0, compute_capability=(7, 5))
A100 = Device(kind="cuda", name="A100", memory_gib=40.0, compute_capability=(8, 0))

LOG = (
    "(EngineCore pid=1) INFO 11-30 03:11:31 [kv_cache_utils.py:2327] CPU KV cache size: "
    "93,184 tokens, Maximum concurrency for 2,048 tokens per request: 45.50x\n"
)


def test_capacity_is_parsed_from_the_engine_log():
    capacity = parse_capacity("noise\n" + LOG)
    assert capacity.kv_cache_tokens == 93184
    assert capacity.max_model_len == 2048
    assert capacity.max_concurrency == pytest.approx(45.5)
    assert str(capacity) == (
        "KV cache of 93,184 tokens: room for 45.5 requests of the full "
        "2,048-token context at once (the engine's start-up log)"
    )
    with pytest.raises(CapacityNotFound, match="no 'KV cache size: N tokens' and"):
        parse_capacity("no capacity line yet")


def test_capacity_of_a_server_not_started_is_a_clear_error():
    with pytest.raises(CapacityNotFound, match="not been started"):
        assert Server("/models/m", device=CPU).capacity is None


def test_flags_mirror_the_vllm_command_line():
    server = Server(
        "/models/m",
        device=T4,
        max_model_len=4096,
        max_num_seqs=64,
        gpu_memory_utilization=0.9,
        enable_prefix_caching=True,
        enable_chunked_prefill=False,
        enforce_eager=True,
    )
    words = server.command
    assert words[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    for pair in (
        ["--max-model-len", "4096"],
        ["--max-num-seqs", "64"],
        ["--gpu-memory-utilization", "0.9"],
        ["--dtype", "half"],
    ):
        i = words.index(pair[0])
        assert words[i : i + 2] == pair
    assert "--enable-prefix-caching" in words
    assert "--no-enable-chunked-prefill" in words
    assert "--enforce-eager" in words
    assert "--kv-cache-memory-bytes" not in words


def test_eager_is_chosen_by_device_unless_given():
    assert "--enforce-eager" in Server("/models/m", device=CPU).command
    assert "--enforce-eager" not in Server("/models/m", device=T4).command
    assert "--enforce-eager" not in Server("/models/m", device=CPU, enforce_eager=False).command
    assert "--enforce-eager" in Server("/models/m", device=A100, enforce_eager=True).command


def test_command_line_is_what_a_reader_types(monkeypatch):
    monkeypatch.setattr(hardware, "available_cores", lambda: [0, 1])
    shown = Server("/home/me/.cache/servelab/m-bf16", device=CPU, max_model_len=1024, port=8123)
    assert shown.command_line.startswith(
        "VLLM_CPU_OMP_THREADS_BIND=0,1 vllm serve m-bf16 --host 127.0.0.1 --port 8123 "
    )
    assert "--max-model-len 1024" in shown.command_line
    assert "/home/me" not in shown.command_line
    assert sys.executable not in shown.command_line
    assert shown.command[shown.command.index("--model") + 1] == "/home/me/.cache/servelab/m-bf16"


def test_every_cpu_server_computes_on_every_core_unless_given_its_cores(monkeypatch):
    monkeypatch.setattr(hardware, "available_cores", lambda: [0, 1, 2])
    monkeypatch.delenv("VLLM_CPU_OMP_THREADS_BIND", raising=False)
    assert Server("/models/m", device=CPU).child_env()["VLLM_CPU_OMP_THREADS_BIND"] == "0,1,2"
    half = Server("/models/m", device=CPU, env={"VLLM_CPU_OMP_THREADS_BIND": "2"})
    assert half.child_env()["VLLM_CPU_OMP_THREADS_BIND"] == "2"
    assert half.command_line.startswith("VLLM_CPU_OMP_THREADS_BIND=2 vllm serve m ")
    assert "VLLM_CPU_OMP_THREADS_BIND" not in Server("/models/m", device=T4).child_env()
    assert hardware.engine_cores_label() == "engine on 3 cores (0,1,2)"
    monkeypatch.setattr(hardware, "available_cores", lambda: [5])
    assert hardware.engine_cores_label() == "engine on 1 core (5)"


def test_a_server_names_the_gpus_it_uses(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    pair = Device(kind="cuda", name="Tesla T4", count=2, memory_gib=15.0, compute_capability=(7, 5))
    assert Server("/models/m", device=pair).runs_on == "Tesla T4 (GPU 0)"
    second = Server("/models/m", device=pair, env={"CUDA_VISIBLE_DEVICES": "1"})
    assert second.runs_on == "Tesla T4 (GPU 1)"
    assert second.command_line.startswith(
        "VLLM_ATTENTION_BACKEND=TRITON_ATTN CUDA_VISIBLE_DEVICES=1 vllm serve m "
    )
    assert "GPU 1" in repr(second)
    split = Server("/models/m", device=pair, tensor_parallel_size=2)
    assert split.runs_on == "2x Tesla T4 (GPU 0, 1)"


def test_a_given_model_is_not_looked_up_or_converted(monkeypatch):
    def refuse(*args: object) -> None:
        raise AssertionError("choose_model ran although model= was given")

    monkeypatch.setattr(server, "choose_model", refuse)
    assert Server("Qwen/Qwen3-0.6B", device=T4).model == "Qwen/Qwen3-0.6B"


def test_cpu_sizes_the_kv_cache_in_bytes_not_by_gpu_fraction():
    server = Server("/models/m", device=CPU, gpu_memory_utilization=0.9, kv_cache_gib=1.5)
    words = server.command
    assert "--gpu-memory-utilization" not in words
    assert words[words.index("--kv-cache-memory-bytes") + 1] == str(int(1.5 * 2**30))
    assert any("--kv-cache-memory-bytes" in note for note in server.notes)


def test_dtype_is_half_below_compute_capability_8_and_float32_on_a_cpu_without_bf16():
    assert default_dtype(T4) == "half"
    assert default_dtype(A100) is None
    assert default_dtype(CPU, flags={"avx2", "avx512f", "avx512_bf16"}) is None
    assert default_dtype(CPU, flags={"avx2", "amx_bf16"}) is None
    assert default_dtype(CPU, flags={"avx2", "avx512f"}) == "float32"
    assert default_dtype(CPU, flags=set()) == "float32"


def test_a_gpu_vllm_cannot_run_falls_back_to_the_cpu(monkeypatch):
    monkeypatch.delenv("SERVELAB_DEVICE", raising=False)
    monkeypatch.setattr(hardware, "query_gpus", lambda: [("Tesla P100", (6, 0), 16.0)])
    device = hardware.detect_device()
    assert device.kind == "cpu"
    assert "P100" in device.note and "6.0" in device.note
    monkeypatch.setattr(hardware, "query_gpus", lambda: [("Tesla T4", (7, 5), 15.0)] * 2)
    device = hardware.detect_device()
    assert (device.kind, device.count, device.compute_capability) == ("cuda", 2, (7, 5))


def test_a_busy_port_is_replaced_by_a_free_one():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        assert free_port(busy) != busy
    assert free_port(busy) == busy


def test_only_a_smoke_run_on_the_cpu_keeps_the_engine_core_in_process(monkeypatch):
    monkeypatch.setenv("SERVELAB_SIZE", "smoke")
    smoke = Server("/models/m", device=CPU)
    assert smoke.child_env()["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
    assert any("VLLM_ENABLE_V1_MULTIPROCESSING" in note for note in smoke.notes)
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" not in Server("/models/m", device=T4).child_env()
    monkeypatch.setenv("SERVELAB_SIZE", "cpu")
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" not in Server("/models/m", device=CPU).child_env()


def test_a_caller_that_says_where_the_engine_core_runs_wins_and_a_twin_keeps_it(monkeypatch):
    monkeypatch.setenv("SERVELAB_SIZE", "cpu")
    inside = Server("/models/m", device=CPU, in_process=True)
    assert inside.child_env()["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
    assert inside.with_flags(max_num_seqs=4).in_process
    monkeypatch.setenv("SERVELAB_SIZE", "smoke")
    assert not Server("/models/m", device=CPU, in_process=False).with_flags().in_process


TWO_A100 = Device(kind="cuda", name="A100", count=2, memory_gib=40.0, compute_capability=(8, 0))
# Each server's command (after the interpreter) and its command line, as Server built them before
# it took its engine arguments as one record (issue #66 item 3): the GPU contract depends on them.
COMMANDS = {
    "cpu, given dtype": (
        lambda: Server("/models/m", device=CPU, dtype="float32"),
        "--model /models/m --served-model-name m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 2147483648 --enforce-eager --dtype float32 --seed 0",
        "VLLM_CPU_OMP_THREADS_BIND=0,1 vllm serve m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 2147483648 --enforce-eager --dtype float32 --seed 0",
    ),
    "cpu, every dial": (
        lambda: Server(
            "/models/m",
            device=CPU,
            max_model_len=2048,
            gpu_memory_utilization=0.9,
            kv_cache_gib=1.5,
            max_num_seqs=8,
            enable_prefix_caching=True,
            enable_chunked_prefill=False,
            max_num_batched_tokens=512,
            enforce_eager=False,
            in_process=True,
            dtype="bfloat16",
            seed=None,
            port=8123,
            extra_args=["--enable-log-requests"],
            env={"VLLM_CPU_OMP_THREADS_BIND": "1"},
        ),
        "--model /models/m --served-model-name m --host 127.0.0.1 --port 8123 --max-model-len 2048 "
        "--kv-cache-memory-bytes 1610612736 --max-num-seqs 8 --enable-prefix-caching "
        "--no-enable-chunked-prefill --max-num-batched-tokens 512 --dtype bfloat16 "
        "--enable-log-requests",
        "VLLM_CPU_OMP_THREADS_BIND=1 vllm serve m --host 127.0.0.1 --port 8123 "
        "--max-model-len 2048 --kv-cache-memory-bytes 1610612736 --max-num-seqs 8 "
        "--enable-prefix-caching --no-enable-chunked-prefill --max-num-batched-tokens 512 "
        "--dtype bfloat16 --enable-log-requests",
    ),
    "t4": (
        lambda: Server(
            "Qwen/Qwen3-0.6B",
            device=T4,
            max_model_len=4096,
            gpu_memory_utilization=0.4,
            max_num_seqs=64,
            enable_prefix_caching=False,
            seed=7,
            port=9000,
        ),
        "--model Qwen/Qwen3-0.6B --served-model-name Qwen/Qwen3-0.6B --host 127.0.0.1 --port 9000 "
        "--max-model-len 4096 --gpu-memory-utilization 0.4 --max-num-seqs 64 "
        "--no-enable-prefix-caching --dtype half --seed 7",
        "VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve Qwen/Qwen3-0.6B --host 127.0.0.1 "
        "--port 9000 --max-model-len 4096 --gpu-memory-utilization 0.4 --max-num-seqs 64 "
        "--no-enable-prefix-caching --dtype half --seed 7",
    ),
    "two a100s": (
        lambda: Server(
            "/models/m",
            device=TWO_A100,
            tensor_parallel_size=2,
            enforce_eager=True,
            kv_cache_gib=0.5,
            enable_chunked_prefill=True,
            env={"CUDA_VISIBLE_DEVICES": "1,0"},
        ),
        "--model /models/m --served-model-name m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 536870912 --enable-chunked-prefill --tensor-parallel-size 2 "
        "--enforce-eager --seed 0",
        "CUDA_VISIBLE_DEVICES=1,0 vllm serve m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 536870912 --enable-chunked-prefill --tensor-parallel-size 2 "
        "--enforce-eager --seed 0",
    ),
    "cpu twin": (
        lambda: Server(
            "/models/m", device=CPU, dtype="float32", kv_cache_gib=1.5, max_num_seqs=8
        ).with_flags(max_num_seqs=4, enable_prefix_caching=True),
        "--model /models/m --served-model-name m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 1610612736 --max-num-seqs 4 --enable-prefix-caching "
        "--enforce-eager --dtype float32 --seed 0",
        "VLLM_CPU_OMP_THREADS_BIND=0,1 vllm serve m --host 127.0.0.1 --port 8000 "
        "--kv-cache-memory-bytes 1610612736 --max-num-seqs 4 --enable-prefix-caching "
        "--enforce-eager --dtype float32 --seed 0",
    ),
    "t4 twin": (
        lambda: Server("/models/m", device=T4, gpu_memory_utilization=0.9, port=8500).with_flags(
            gpu_memory_utilization=0.4, kv_cache_gib=1.0
        ),
        "--model /models/m --served-model-name m --host 127.0.0.1 --port 8000 "
        "--gpu-memory-utilization 0.4 --kv-cache-memory-bytes 1073741824 --dtype half --seed 0",
        "VLLM_ATTENTION_BACKEND=TRITON_ATTN vllm serve m --host 127.0.0.1 --port 8000 "
        "--gpu-memory-utilization 0.4 --kv-cache-memory-bytes 1073741824 --dtype half --seed 0",
    ),
}


@pytest.mark.parametrize("case", COMMANDS)
def test_the_command_is_what_it_was_before_the_engine_arguments_became_a_record(monkeypatch, case):
    monkeypatch.setattr(hardware, "available_cores", lambda: [0, 1])
    make, command, command_line = COMMANDS[case]
    built = make()
    assert built.command[0] == sys.executable
    assert shlex.join(built.command[1:]) == f"-m vllm.entrypoints.openai.api_server {command}"
    assert built.command_line == command_line


def test_how_the_process_runs_is_one_record_a_twin_keeps(tmp_path):
    launch = Launch(host="0.0.0.0", start_timeout=30.0, log_dir=tmp_path)
    twin = Server("/models/m", device=T4, launch=launch).with_flags(max_num_seqs=4)
    assert (twin.launch, twin.host, twin.start_timeout, twin.log_dir) == (
        launch,
        "0.0.0.0",
        30.0,
        tmp_path,
    )
    assert "--host 0.0.0.0" in twin.command_line
