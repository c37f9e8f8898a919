"""servelab: executable lessons on serving many LLM users from one machine with vLLM.

Importing any part of servelab runs this first, so every ``Server`` built without an explicit
``in_process`` follows the size table: the engine core runs in process only in a smoke run on
the CPU (``servelab.sizes.engine_in_process``). The engines themselves never read the sizes.
"""

from servelab import sizes
from servelab.engines import vllm_server
from servelab.engines.vllm_server import Capacity, Server, ServerStartError, stop_all

vllm_server.in_process_by_default = sizes.engine_in_process

__all__ = ["Capacity", "Server", "ServerStartError", "stop_all"]
