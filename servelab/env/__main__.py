"""``python -m servelab.env``: env/setup.sh's steps with the bootstrap's installers."""

from __future__ import annotations

import argparse
import sys

from servelab.env.install import (
    ensure_offline_model,
    ensure_router,
    install_cpu_torch,
    remove_torch_extras,
    verify_transformers,
)
from servelab.env.installers import PipError, SetupError, pip
from servelab.env.runtime import describe
from servelab.hardware import detect_device


def main(argv: list[str] | None = None) -> int:
    """0 on success; 1, with the reason on stderr, when set-up or pip failed."""
    parser = argparse.ArgumentParser(prog="python -m servelab.env")
    parser.add_argument(
        "command",
        choices=["setup", "describe", "install-torch", "router", "pip"],
        help="setup: finish env/setup.sh; install-torch: the CPU engine's torch; "
        "router: vLLM's router (chapter 09); "
        "pip ARGS: run pip quietly, printing its output only on failure",
    )
    parser.add_argument("pip_args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    try:
        if args.command == "setup":
            remove_torch_extras()
            verify_transformers()
            ensure_offline_model()
            print(f"servelab ready: {describe().summary()}")
        elif args.command == "router":
            ensure_router(detect_device())
        elif args.command == "install-torch":
            install_cpu_torch()
        elif args.command == "pip":
            pip(*args.pip_args)
        else:
            print(describe().measured_on())
    except (SetupError, PipError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
