"""The `tablesight` command line: one module per command, each with `register(subparsers)`.

Bad input of any kind ends in one line on stderr and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys

# Each module under assistant/cli/ named here adds one subcommand.
COMMANDS = ("analyze", "los", "targets", "calibrate", "print_sheets", "resolve", "serve")


class CommandError(ValueError):
    """A user-facing failure of a command: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablesight",
        description="A camera assistant that measures and referees miniature wargames on a real table.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"assistant.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, OSError) as exc:
        # Domain errors (ProfileError, SceneError, RegistrationError, ...) are ValueErrors whose
        # message already names the item; OSError covers unreadable files.
        message = str(exc) or exc.__class__.__name__
        if isinstance(exc, OSError) and getattr(exc, "filename", None):
            message = f"{exc.filename}: {exc.strerror or message}"
        print(f"tablesight: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
