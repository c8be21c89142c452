"""Build and install the display unit's firmware.

The unit runs three files side by side in its flash: ``main.py`` (started at
boot), ``unit.py`` and ``protocol_core.py``, the last one copied from
``firmware_bridge/protocol_core.py`` so the host and the unit speak through the
very same code. On the unit they import each other flat (``import
protocol_core``); in this repository they fall back to package imports.

    python -m hardware.firmware.deploy --stage build/firmware   # write the three files to a folder
    python -m hardware.firmware.deploy --port /dev/ttyACM0      # copy them onto the unit and restart it
    python -m hardware.firmware.deploy --port /dev/ttyACM0 --drivers   # also install the ssd1306 driver

Installing uses ``mpremote`` (``pip install mpremote``), MicroPython's own tool.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "main.py": ROOT / "hardware" / "firmware" / "main.py",
    "unit.py": ROOT / "hardware" / "firmware" / "unit.py",
    "protocol_core.py": ROOT / "firmware_bridge" / "protocol_core.py",
}


def stage(folder: Path) -> list[Path]:
    """Copy the unit's files into ``folder`` (created if needed), side by side; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    staged = []
    for name, source in SOURCES.items():
        target = folder / name
        shutil.copyfile(source, target)
        staged.append(target)
    return staged


def mpremote_commands(port: str, files: list[Path], drivers: bool) -> list[list[str]]:
    """The mpremote invocations that install ``files`` on the unit at ``port`` and restart it."""
    commands = []
    if drivers:
        commands.append(["mpremote", "connect", port, "mip", "install", "ssd1306"])
    commands.append(["mpremote", "connect", port, "fs", "cp", *map(str, files), ":", "+", "reset"])
    return commands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.firmware.deploy", description=__doc__.split("\n\n")[0])
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stage", type=Path, metavar="FOLDER", help="write the firmware files to FOLDER")
    target.add_argument("--port", help="install on the unit at PORT (e.g. /dev/ttyACM0) with mpremote")
    parser.add_argument("--drivers", action="store_true", help="also install the ssd1306 driver (needs network on the host)")
    args = parser.parse_args(argv)
    if args.stage is not None:
        for path in stage(args.stage):
            print(path)
        return 0
    if shutil.which("mpremote") is None:
        print("deploy: mpremote not found; install it with: pip install mpremote", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        files = stage(Path(folder))
        for command in mpremote_commands(args.port, files, args.drivers):
            result = subprocess.run(command, check=False)
            if result.returncode:
                print(f"deploy: {' '.join(command)} failed with status {result.returncode}", file=sys.stderr)
                return result.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
