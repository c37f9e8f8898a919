"""servelab: executable lessons on serving many LLM users from one machine with vLLM."""

from servelab.engines.vllm_server import Capacity, Server, ServerStartError, stop_all

__all__ = ["Capacity", "Server", "ServerStartError", "stop_all"]
