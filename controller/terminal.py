"""The terminal view of a table: the board as read, the LEDs, the display and the events.

Used when bgref runs on the simulated table (``bgref run --sim``) and for
watching a real table from a laptop. It prints a panel each time something a
player would notice changes.
"""

from __future__ import annotations

import sys
from typing import TextIO

from controller.referee import Beep, Display, Lights, PointLights, Scoreboard


class TerminalView:
    """An output that prints what the table shows.

    ``board`` is called for the last observation (the board as read), ``unit``
    for a drawing of what the display unit itself shows.
    """

    def __init__(self, stream: TextIO = sys.stdout, board=None, variant="standard", unit=None):
        self.stream = stream
        self.board = board
        self.unit = unit
        self.variant = variant
        self.lights: Lights | None = None
        self.display: tuple[str, ...] = ()
        self.scoreboard: Scoreboard | None = None
        self.points: dict[str, str] = {}

    def handle(self, signal) -> None:
        if isinstance(signal, Lights):
            self.lights = signal
        elif isinstance(signal, Display):
            if signal.lines == self.display:
                return
            self.display = signal.lines
            self._print()
        elif isinstance(signal, Scoreboard):
            self.scoreboard = signal
        elif isinstance(signal, PointLights):
            self.points = dict(signal.points)
        elif isinstance(signal, Beep):
            self.stream.write(f"  ** beep ({signal.kind}) **\n")
            self.stream.flush()

    def led_line(self) -> str:
        lights = self.lights
        if lights is None:
            return "LEDs: -"
        turn = "-" if lights.turn is None else str(lights.turn)
        lit = [name for name, on in (("ok", lights.ok), ("ILLEGAL", lights.illegal)) if on]
        points = f"  points lit: {', '.join(sorted(self.points, key=_order))}" if self.points else ""
        return f"LEDs: turn {turn}  {' '.join(lit) or '-'}{points}"

    def _print(self) -> None:
        out = ["", "=" * 60]
        observation = self.board() if self.board else None
        position = observation.to_position(self.variant) if observation is not None else None
        if position is not None:
            out.append(position.diagram())
        elif observation is not None:
            out.append("(board not read clearly)")
        box = max([len(line) for line in self.display] + [20])
        out.append("+" + "-" * (box + 2) + "+")
        out += [f"| {line:<{box}} |" for line in self.display]
        out.append("+" + "-" * (box + 2) + "+")
        out.append(self.led_line())
        if self.unit is not None:
            out.append("display unit:")
            out.append(self.unit())
        if self.scoreboard and self.scoreboard.clock:
            w, b, running = self.scoreboard.clock
            out.append(f"clock: white {_mmss(w)}  black {_mmss(b)}" + (f"  ({running} running)" if running else ""))
        self.stream.write("\n".join(out) + "\n")
        self.stream.flush()


def _order(label: str):
    return (0, int(label)) if label.isdigit() else (1, label)


def _mmss(seconds: float) -> str:
    sign = "-" if seconds < 0 else ""
    seconds = abs(int(seconds))
    return f"{sign}{seconds // 60}:{seconds % 60:02d}"

