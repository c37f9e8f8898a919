"""vLLM 0.11.2's CUDA platform, answering as one or more Tesla T4s, on a machine without a GPU.

Only what a GPU would be asked before the first kernel runs is answered (by vLLM's platform and
by ``torch.cuda.get_device_capability``): compute capability 7.5,
the name, 15 GiB (nvidia-smi's 15,360 MiB, which 0.11.2's NVML platform reads) and the number of
cards. ``vllm._C`` (the compiled kernels, which need the CUDA driver to load) is replaced by an
empty module; nothing here calls a kernel. 0.11.2 inspects a model's class in a fresh
interpreter, where none of this holds, so that inspection runs in this process instead. Call
:func:`simulate_t4s` before vLLM reads its platform.
"""

from __future__ import annotations

import sys
import types

T4_NAME = "Tesla T4"
T4_MEMORY_BYTES = 15 * 2**30
T4_CAPABILITY = (7, 5)
# Kernel queries 0.11.2 makes while importing model code, each answered as vllm._C answers on a
# T4 (sm75): every one of these CUTLASS paths needs sm89 or later.
T4_KERNEL_QUERIES = {
    "cutlass_scaled_mm_supports_fp8": lambda capability: False,
    "cutlass_scaled_mm_supports_block_fp8": lambda capability: False,
    "cutlass_group_gemm_supported": lambda capability: False,
    "cutlass_scaled_mm_supports_fp4": lambda capability: False,
}


def simulate_t4s(count: int) -> None:
    """Make vLLM's current platform ``count`` Tesla T4s."""
    sys.modules.setdefault("vllm._C", types.ModuleType("vllm._C"))
    import torch

    for name, answer in T4_KERNEL_QUERIES.items():
        setattr(torch.ops._C, name, answer)
    torch.cuda.get_device_capability = lambda device=None: T4_CAPABILITY
    import vllm.config.parallel as parallel
    import vllm.model_executor.models.registry as registry
    import vllm.platforms as platforms
    import vllm.platforms.cuda as cuda
    import vllm.utils.torch_utils as torch_utils
    from vllm.platforms.interface import DeviceCapability

    class TeslaT4s(cuda.CudaPlatformBase):
        @classmethod
        def get_device_capability(cls, device_id: int = 0) -> DeviceCapability:
            return DeviceCapability(*T4_CAPABILITY)

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return T4_NAME

        @classmethod
        def get_device_uuid(cls, device_id: int = 0) -> str:
            return f"GPU-gpu-contract-{device_id}"

        @classmethod
        def get_device_total_memory(cls, device_id: int = 0) -> int:
            return T4_MEMORY_BYTES

        @classmethod
        def is_fully_connected(cls, physical_device_ids: list[int]) -> bool:
            return False  # Kaggle's two T4s have no NVLink

    platforms._current_platform = TeslaT4s()
    registry._run_in_subprocess = lambda function: function()
    for module in (parallel, cuda, torch_utils):
        module.cuda_device_count_stateless = lambda: count
