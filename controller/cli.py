"""The ``bgref`` command: one sub-command per module of ``controller.commands``.

Each module there defines ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable taking the parsed arguments and returning the exit
status. Errors a user can cause (bad IDs, unreadable files) are raised as
``ValueError`` or ``OSError`` and printed as one line, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from controller import commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bgref", description="A referee for real backgammon boards.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as err:
        print(f"bgref {args.command}: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
