"""servelab: executable lessons on serving many LLM users from one machine with vLLM.

Importing any part of servelab runs this first, so every ``Server`` built without an explicit
``in_process`` follows the size profile: the engine core runs in process only in a smoke run on
the CPU (``servelab.sizes.engine_in_process``). The engines themselves never read the sizes.
It also hands each chapter's sizes, declared in its package under ``servelab.lessons``, down to
``servelab.sizes``, where ``runtime.sizes(chapter)`` reads them.
"""

from servelab import book, sizes
from servelab.engines import vllm_server
from servelab.engines.vllm_server import Capacity, Server, ServerStartError, stop_all

vllm_server.in_process_by_default = sizes.engine_in_process
sizes.DECLARED.update({chapter.id: chapter.sizes for chapter in book.CHAPTERS})

__all__ = ["Capacity", "Server", "ServerStartError", "stop_all"]
