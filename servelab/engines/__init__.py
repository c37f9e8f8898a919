"""The programs the book runs as child processes, each a context manager.

- ``process``: the life cycle every engine shares (start, health, logs, stop, a failed start's
  reason);
- ``running``: what measuring and routing code needs of a running server;
- ``vllm_server``: vLLM's OpenAI-compatible server;
- ``llama_server`` and ``llama_build``: llama-cpp-python's server, and its wheel built once for
  this CPU;
- ``llama_parallel_server`` and ``llama_server_build``: llama.cpp's own ``llama-server`` with
  parallel slots, and its binary built once from the same source, on the binding's libraries;
- ``placement``: each server's share of the device, and starting several together;
- ``replicas`` and ``router``: copies of one vLLM server, and vLLM's router in front of them.
"""
