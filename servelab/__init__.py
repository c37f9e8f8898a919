"""servelab: executable lessons on serving many LLM users from one machine with vLLM."""

from servelab.server import Capacity, Server, ServerStartError, stop_all

REPOSITORY = "https://github.com/servelab/servelab"
BRANCH = "main"

__all__ = ["BRANCH", "REPOSITORY", "Capacity", "Server", "ServerStartError", "stop_all"]
