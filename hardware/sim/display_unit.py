"""The display unit, simulated: its firmware logic at the far end of a pty or a TCP socket.

``SimulatedDisplayUnit`` runs ``hardware/firmware/unit.py`` -- the code the
Pico runs -- on a thread, with a recording screen, strip and buzzer, behind a
port that pyserial opens like the real one: the path of a pty (optionally
published under a stable symlink, like ``/dev/ttyACM0``), or
``socket://127.0.0.1:PORT``. Bytes in both directions cross a simulated
cable at the baud rate, where ``faults`` drops, corrupts, duplicates or
delays them. ``reset()`` restarts the unit; ``unplug()`` and ``replug()`` take
the port away and bring it back (a fresh unit, as after a power cycle),
optionally under a new name.

``snapshot()`` is what the unit shows; ``Snapshot.render()`` draws it as
text, for a terminal. Run ``python -m hardware.sim.display_unit`` to get a
unit on a pty that draws itself on the terminal.

>>> from firmware_bridge import DisplayLink        # doctest: +SKIP
>>> with SimulatedDisplayUnit() as unit:            # doctest: +SKIP
...     link = DisplayLink(unit.url)
...     link.show_text(["hello"])
...     unit.wait_until(lambda s: s.text == ("hello",), timeout=1.0)
True
"""

from __future__ import annotations

import argparse
import os
import random
import re
import select
import socket
import sys
import threading
import time
import tty
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge import protocol_core as core
from hardware.firmware.unit import DisplayUnit
from hardware.sim.cable import Faults, Wire

TICK = 0.01  # the unit is stepped at least this often

_LETTERS = {"R": (255, 0, 0), "G": (0, 255, 0), "B": (0, 0, 255), "A": (255, 120, 0), "Y": (255, 220, 0)}


def _letter(rgb: tuple[int, int, int], blink: bool) -> str:
    """One letter for a light: the nearest of red, green, blue, amber, yellow, white; lower case if blinking."""
    if min(rgb) > 160:
        letter = "W"
    else:
        letter = min(_LETTERS, key=lambda k: sum((a - b) ** 2 for a, b in zip(_LETTERS[k], rgb)))
    return letter.lower() if blink else letter


@dataclass(frozen=True)
class Snapshot:
    """What the unit shows: screen rows, strip pixels, the lights it was told, the buzzer."""

    rows: tuple[str, ...]
    pixels: tuple[tuple[int, int, int], ...]
    text: tuple[str, ...]
    match: tuple | None
    lights: Mapping[int, tuple[tuple[int, int, int], bool]]
    tone: int  # Hz sounding now, 0 silent
    beeps: int  # beeps started since the unit was created
    session: int
    boots: int  # times the unit has started (1 + resets + re-plugs)
    cols: int = field(default=16)

    def render(self) -> str:
        """The screen in a frame, then the lights drawn as the board's two rows of points."""
        width = self.cols
        lines = ["+" + "-" * width + "+"]
        lines += ["|" + row.ljust(width)[:width] + "|" for row in self.rows]
        lines.append("+" + "-" * width + "+")

        def cell(location: int) -> str:
            light = self.lights.get(location)
            return _letter(*light) if light else "."

        top = list(range(13, 25))
        bottom = list(range(12, 0, -1))
        lines.append(" ".join(f"{p:2d}" for p in top[:6]) + " |BAR| " + " ".join(f"{p:2d}" for p in top[6:]))
        lines.append(
            " ".join(f"{cell(p):>2}" for p in top[:6])
            + f" | {cell(core.LOC_BAR)} | "
            + " ".join(f"{cell(p):>2}" for p in top[6:])
        )
        lines.append(" ".join(f"{cell(p):>2}" for p in bottom[:6]) + " |   | " + " ".join(f"{cell(p):>2}" for p in bottom[6:]))
        lines.append(" ".join(f"{p:2d}" for p in bottom[:6]) + " |   | " + " ".join(f"{p:2d}" for p in bottom[6:]))
        buzzer = f"{self.tone} Hz" if self.tone else "off"
        lines.append(
            f"White tray {cell(core.LOC_WHITE_TRAY)}  Black tray {cell(core.LOC_BLACK_TRAY)}  buzzer {buzzer}"
        )
        return "\n".join(lines)


class RecordingScreen:
    """A screen that keeps the rows it was last told to show."""

    def __init__(self) -> None:
        self.rows: tuple[str, ...] = ()

    def show(self, rows: list[str]) -> None:
        self.rows = tuple(rows)


class RecordingStrip:
    """An LED strip that keeps the pixels it was last told to show."""

    def __init__(self) -> None:
        self.pixels: tuple[tuple[int, int, int], ...] = ()

    def show(self, pixels: list[tuple[int, int, int]]) -> None:
        self.pixels = tuple(pixels)


class RecordingBuzzer:
    """A buzzer that keeps its frequency and every tone it started."""

    def __init__(self) -> None:
        self.frequency = 0
        self.tones: list[int] = []

    @property
    def beeps(self) -> int:
        return len(self.tones)

    def tone(self, frequency: int) -> None:
        if frequency:
            self.tones.append(frequency)
        self.frequency = frequency


class RecordedUnit:
    """The firmware logic driving a recording screen, strip and buzzer."""

    def __init__(self, now_ms: int, config: dict | None, reason: int, boots: int):
        self.screen, self.strip, self.buzzer = RecordingScreen(), RecordingStrip(), RecordingBuzzer()
        self.unit = DisplayUnit(self.screen, self.strip, self.buzzer, now_ms, config, reason)
        self.boots = boots

    def snapshot(self) -> Snapshot:
        unit = self.unit
        return Snapshot(
            rows=self.screen.rows,
            pixels=self.strip.pixels,
            text=tuple(unit.text),
            match=unit.match,
            lights={loc: (rgb, mode == core.LIGHT_BLINK) for loc, (rgb, mode) in unit.lights.items()},
            tone=self.buzzer.frequency,
            beeps=self.buzzer.beeps,
            session=unit.session,
            boots=self.boots,
            cols=unit.config["cols"],
        )


class SimulatedDisplayUnit:
    """The display unit's firmware on a thread behind a pty (``transport="pty"``) or a TCP socket.

    ``link``: for a pty, a path to publish it under as a symlink; a trailing
    number in its name is counted up by ``replug(new_name=True)``, like a
    device coming back as ``/dev/ttyACM1``. For TCP, the port to listen on
    (0 picks a free one). ``baudrate`` paces the simulated cable (None: no
    pacing). ``faults`` applies to both directions; ``seed`` makes them
    repeatable. ``config`` overrides ``unit.DEFAULT_CONFIG``.
    """

    def __init__(
        self,
        *,
        transport: str = "pty",
        link: str | Path | int | None = None,
        baudrate: int | None = 115200,
        faults: Faults | None = None,
        seed: int = 0,
        config: dict | None = None,
    ):
        if transport not in ("pty", "tcp"):
            raise ValueError(f"transport must be 'pty' or 'tcp', not {transport!r}")
        self.transport = transport
        self.faults = faults if faults is not None else Faults()
        self.config = config
        rng = random.Random(seed)
        self._to_unit = Wire(baudrate, self.faults, rng)
        self._to_host = Wire(baudrate, self.faults, rng)
        self._link = Path(link) if transport == "pty" and link is not None else None
        self._tcp_port = int(link or 0) if transport == "tcp" else 0
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._t0 = time.monotonic()
        self._device: RecordedUnit | None = None
        self._fd: int | None = None  # pty master, or the accepted TCP connection's fd
        self._slave: int | None = None
        self._pty_path: str | None = None
        self._listener: socket.socket | None = None
        self._conn: socket.socket | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._snapshot: Snapshot | None = None
        self._new_unit(core.BOOT_POWER_ON)

    # ------------------------------------------------------------ control

    def start(self) -> SimulatedDisplayUnit:
        """Plug the unit in and start it."""
        with self._lock:
            self._plug()
        self._thread = threading.Thread(target=self._loop, name="bgref-sim-display", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop the unit and remove its port."""
        self._stopping = True
        self._poke()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            self._unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def __enter__(self) -> SimulatedDisplayUnit:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def url(self) -> str:
        """What to give ``serial.serial_for_url`` (or DisplayLink) to reach the unit now."""
        with self._lock:
            if self.transport == "tcp":
                return f"socket://127.0.0.1:{self._tcp_port}"
            if self._link is not None:
                return str(self._link)
            if self._pty_path is None:
                raise RuntimeError("the simulated display unit is unplugged")
            return self._pty_path

    def reset(self, reason: int = core.BOOT_SOFT) -> None:
        """Restart the unit's firmware: it forgets its session and its screen."""
        with self._lock:
            self._new_unit(reason)
        self._poke()

    def unplug(self) -> None:
        """Pull the cable: the port disappears and the unit loses power."""
        with self._lock:
            self._unplug()
        self._poke()

    def replug(self, new_name: bool = False) -> None:
        """Plug the cable back in: a freshly powered unit, on a new port name if ``new_name``."""
        with self._lock:
            self._unplug()
            if new_name:
                self._rename()
            self._new_unit(core.BOOT_POWER_ON)
            self._plug()
        self._poke()

    def press(self, button: str) -> None:
        """Press one of the unit's buttons ("accept", "undo", "menu")."""
        if button not in core.BUTTON_NAMES[1:]:
            raise ValueError(f"unknown button {button!r}; the unit has {', '.join(core.BUTTON_NAMES[1:])}")
        with self._lock:
            self.unit.press(core.BUTTON_NAMES.index(button), self._ms(time.monotonic()))
        self._poke()

    def snapshot(self) -> Snapshot:
        """What the unit shows now."""
        with self._lock:
            return self._take_snapshot()

    def wait_until(self, predicate: Callable[[Snapshot], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for ``predicate(snapshot)`` to hold."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self._take_snapshot()), timeout)

    def render(self) -> str:
        """What the unit shows, drawn as text (the referee's terminal view uses this)."""
        return self.snapshot().render()

    @property
    def bytes_to_unit(self) -> int:
        """Bytes the host has written to the unit so far (before damage)."""
        return self._to_unit.sent

    # ------------------------------------------------------------ internals (under the lock)

    def _ms(self, now: float) -> int:
        return int((now - self._t0) * 1000)

    def _new_unit(self, reason: int) -> None:
        boots = self._device.boots + 1 if self._device is not None else 1
        self._device = RecordedUnit(self._ms(time.monotonic()), self.config, reason, boots)
        self._snapshot = None

    @property
    def unit(self) -> DisplayUnit:
        """The firmware logic running now (a new one after each reset or re-plug)."""
        return self._device.unit

    def _take_snapshot(self) -> Snapshot:
        return self._device.snapshot()

    def _plug(self) -> None:
        if self.transport == "pty":
            master, slave = os.openpty()
            tty.setraw(master)
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._fd, self._slave = master, slave
            self._pty_path = os.ttyname(slave)
            if self._link is not None:
                self._link.parent.mkdir(parents=True, exist_ok=True)
                tmp = self._link.with_name(self._link.name + ".new")
                tmp.unlink(missing_ok=True)
                tmp.symlink_to(self._pty_path)
                tmp.replace(self._link)
        else:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", self._tcp_port))
            listener.listen(1)
            listener.setblocking(False)
            self._tcp_port = listener.getsockname()[1]
            self._listener = listener

    def _unplug(self) -> None:
        self._to_unit.clear()
        self._to_host.clear()
        if self._link is not None and self._link.is_symlink():
            self._link.unlink()
        for fd in (self._fd if self.transport == "pty" else None, self._slave):
            if fd is not None:
                os.close(fd)
        self._fd = self._slave = self._pty_path = None
        for sock in (self._conn, self._listener):
            if sock is not None:
                sock.close()
        self._conn = self._listener = None

    def _rename(self) -> None:
        if self.transport == "tcp":
            self._tcp_port = 0
        elif self._link is not None:
            match = re.search(r"(\d+)$", self._link.name)
            number = int(match.group(1)) + 1 if match else 1
            stem = self._link.name[: match.start()] if match else self._link.name
            self._link = self._link.with_name(f"{stem}{number}")
        # A bare pty gets a new /dev/pts name from the kernel anyway.

    def _poke(self) -> None:
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass  # closed: the loop has stopped

    # ------------------------------------------------------------ the unit's thread

    def _loop(self) -> None:
        while not self._stopping:
            with self._lock:
                fds = [self._wake_r] + [s for s in (self._fd, self._listener) if s is not None]
                waits = [TICK] + [
                    due - time.monotonic()
                    for due in (self._to_unit.next_arrival(), self._to_host.next_arrival())
                    if due is not None
                ]
            try:
                readable, _, _ = select.select(fds, [], [], max(0.0, min(waits)))
            except OSError:
                continue  # a port closed (unplugged, replugged) while waiting: wait on the new ones
            with self._changed:
                now = time.monotonic()
                if self._wake_r in readable:
                    os.read(self._wake_r, 4096)
                if self._listener is not None and self._listener in readable:
                    self._accept()
                if self._fd is not None and self._fd in readable:
                    self._read(now)
                data = self._to_unit.receive(now)
                ms = self._ms(now)
                if data:
                    self.unit.receive(data, ms)
                out = self.unit.step(ms)
                if out and self._fd is not None:
                    self._to_host.send(out, now)
                self._write(self._to_host.receive(now))
                snapshot = self._take_snapshot()
                if snapshot != self._snapshot:
                    self._snapshot = snapshot
                    self._changed.notify_all()

    def _accept(self) -> None:
        try:
            conn, _ = self._listener.accept()
        except BlockingIOError:
            return
        if self._conn is not None:  # a new host connection replaces the old one
            self._conn.close()
        conn.setblocking(False)
        self._conn = conn
        self._fd = conn.fileno()
        self._to_unit.clear()
        self._to_host.clear()

    def _read(self, now: float) -> None:
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._to_unit.send(data, now)
        elif self.transport == "tcp":  # the host closed its connection
            self._conn.close()
            self._conn = None
            self._fd = None

    def _write(self, data: bytes) -> None:
        if not data or self._fd is None:
            return
        try:
            os.write(self._fd, data)
        except OSError:
            pass  # nobody reading, buffer full or connection gone: the bytes are lost, as on a cable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hardware.sim.display_unit",
        description="A simulated display unit on a pty (or TCP), drawn on the terminal. "
        "Type a/u/m + Enter to press ACCEPT/UNDO/MENU, r to reset, p to unplug and replug, q to quit.",
    )
    parser.add_argument("--tcp", type=int, metavar="PORT", help="listen on 127.0.0.1:PORT instead of a pty")
    parser.add_argument("--link", help="publish the pty under this symlink path")
    parser.add_argument("--baud", type=int, default=115200)
    for name in ("drop", "corrupt", "duplicate", "delay"):
        parser.add_argument(f"--{name}", type=float, default=0.0, help=f"probability of {name} per byte (chunk for delay)")
    args = parser.parse_args(argv)
    faults = Faults(drop=args.drop, corrupt=args.corrupt, duplicate=args.duplicate, delay=args.delay)
    transport = "tcp" if args.tcp is not None else "pty"
    link = args.tcp if args.tcp is not None else args.link
    commands = {"a": "accept", "u": "undo", "m": "menu"}
    with SimulatedDisplayUnit(transport=transport, link=link, baudrate=args.baud, faults=faults) as unit:
        stop = threading.Event()

        def draw() -> None:
            shown = None
            while not stop.is_set():
                unit.wait_until(lambda s: s != shown, timeout=0.5)
                shown = unit.snapshot()
                sys.stdout.write(f"\x1b[H\x1b[2J{unit.url}\n{shown.render()}\n> ")
                sys.stdout.flush()

        threading.Thread(target=draw, daemon=True).start()
        for line in sys.stdin:
            key = line.strip().lower()
            if key == "q":
                break
            if key in commands:
                unit.press(commands[key])
            elif key == "r":
                unit.reset()
            elif key == "p":
                unit.unplug()
                time.sleep(0.5)
                unit.replug()
        stop.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
