"""What the display unit should show: the host's intended state, and its encoding.

The host keeps the unit's whole screen here -- text lines, the match panel,
the point lights -- so a unit that restarts or is plugged in again is given
all of it, and a slow unit is sent only the latest of each part. Each part
carries a version that goes up when (and only when) its value changes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from firmware_bridge import protocol_core as core

BAR = core.LOC_BAR
WHITE_TRAY = core.LOC_WHITE_TRAY
BLACK_TRAY = core.LOC_BLACK_TRAY

COLOURS = {
    "red": (255, 0, 0),
    "green": (0, 255, 0),
    "blue": (0, 0, 255),
    "amber": (255, 120, 0),
    "yellow": (255, 220, 0),
    "white": (255, 255, 255),
}

PARTS = ("match", "text", "lights")


def _side_code(side: int | None, what: str) -> int:
    if side is None:
        return core.NOBODY
    if side not in (0, 1):
        raise ValueError(f"{what} must be 0 (White), 1 (Black) or None, not {side!r}")
    return core.WHITE_SIDE if side == 0 else core.BLACK_SIDE


@dataclass(frozen=True)
class Clock:
    """Each player's remaining time in seconds, and whose clock runs (0 White, 1 Black, None)."""

    white: float
    black: float
    running: int | None = None

    def __post_init__(self) -> None:
        for name in ("white", "black"):
            value = getattr(self, name)
            if not 0 <= value < 4_000_000:
                raise ValueError(f"clock {name} must be 0..4000000 seconds, not {value!r}")
        _side_code(self.running, "clock running")


@dataclass(frozen=True)
class MatchState:
    """The match panel: score (White, Black), match length (0 for money play), Crawford,
    the cube (value, owner 0 White / 1 Black / None centred) and the clocks."""

    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    post_crawford: bool = False
    cube_value: int = 1
    cube_owner: int | None = None
    clock: Clock | None = None

    def __post_init__(self) -> None:
        if len(self.score) != 2 or not all(0 <= s <= 0xFFFF for s in self.score):
            raise ValueError(f"score must be two numbers 0..65535, not {self.score!r}")
        if not 0 <= self.match_length <= 0xFFFF:
            raise ValueError(f"match length must be 0..65535, not {self.match_length!r}")
        if self.crawford and self.post_crawford:
            raise ValueError("a game cannot be both the Crawford game and post-Crawford")
        value = self.cube_value
        if value < 1 or value > 1 << 15 or value & (value - 1):
            raise ValueError(f"cube value must be a power of two 1..32768, not {value!r}")
        _side_code(self.cube_owner, "cube owner")


@dataclass(frozen=True)
class UnitInfo:
    """What the unit said it has in its WELCOME."""

    firmware: tuple[int, int]
    text_rows: int
    text_cols: int
    lights: bool
    buzzer: bool
    buttons: tuple[str, ...]


def text_lines(lines: str | Sequence[str]) -> tuple[str, ...]:
    """Lines to show: a string is split at its line breaks."""
    if isinstance(lines, str):
        return tuple(lines.splitlines())
    result = tuple(lines)
    for line in result:
        if not isinstance(line, str):
            raise ValueError(f"text lines must be strings, not {line!r}")
        if "\n" in line:
            raise ValueError(f"a text line must not contain a line break: {line!r}")
    return result


def wrap(lines: Sequence[str], cols: int) -> list[str]:
    """``lines`` broken at spaces into lines of at most ``cols`` characters (a longer word is
    cut across lines), each fitting a TEXT line."""
    out: list[str] = []
    for line in lines:
        out += [_fit(part, cols) for part in textwrap.wrap(line, max(cols, 1), break_on_hyphens=False)] or [""]
    return out


def _fit(line: str, cols: int) -> str:
    """``line`` cut to ``cols`` characters and to the 255 UTF-8 bytes a TEXT line can hold."""
    line = line[:cols]
    while len(line.encode("utf-8")) > 255:
        line = line[:-1]
    return line


def _rgb(colour: str | tuple[int, int, int]) -> tuple[int, int, int]:
    if isinstance(colour, str):
        try:
            return COLOURS[colour]
        except KeyError:
            raise ValueError(f"unknown colour {colour!r}; known: {', '.join(COLOURS)}") from None
    rgb = tuple(colour)
    if len(rgb) != 3 or not all(isinstance(c, int) and 0 <= c <= 255 for c in rgb):
        raise ValueError(f"a colour is a name or (r, g, b) with 0..255 each, not {colour!r}")
    return rgb


def point_lights(lights: Mapping[int, tuple[str | tuple[int, int, int], bool]]) -> tuple:
    """``{location: (colour, blink)}`` as sorted ``(location, rgb, mode)`` entries.

    Locations are the points 1..24 in White's numbering, ``BAR``,
    ``WHITE_TRAY`` and ``BLACK_TRAY``; a colour is a name from ``COLOURS`` or
    an ``(r, g, b)`` tuple.
    """
    entries = []
    for location, value in lights.items():
        if not isinstance(location, int) or not 1 <= location <= core.LOCATIONS:
            raise ValueError(f"light location must be a point 1..24, BAR, WHITE_TRAY or BLACK_TRAY, not {location!r}")
        try:
            colour, blink = value
        except (TypeError, ValueError):
            raise ValueError(f"light at {location} must be (colour, blink), not {value!r}") from None
        entries.append((location, _rgb(colour), core.LIGHT_BLINK if blink else core.LIGHT_STEADY))
    return tuple(sorted(entries))


@dataclass
class DisplayState:
    """The host's intended screen: text, match panel, lights, each with a version."""

    text: tuple[str, ...] = ()
    match: MatchState | None = None
    match_at: float = 0.0  # when ``match`` was set: the running clock counts from here
    lights: tuple = ()
    versions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PARTS, 0))

    def set_text(self, lines: tuple[str, ...]) -> None:
        if lines != self.text:
            self.text = lines
            self.versions["text"] += 1

    def set_match(self, match: MatchState | None, now: float) -> None:
        if match != self.match or (match is not None and match.clock is not None):
            self.match = match
            self.match_at = now
            self.versions["match"] += 1

    def set_lights(self, lights: tuple) -> None:
        if lights != self.lights:
            self.lights = lights
            self.versions["lights"] += 1

    def clear(self) -> None:
        self.set_text(())
        self.set_match(None, 0.0)
        self.set_lights(())

    def blank(self) -> bool:
        return not self.text and self.match is None and not self.lights

    def encode(self, part: str, now: float, info: UnitInfo) -> tuple[int, bytes]:
        """The message that sets ``part`` on the unit, as of ``now``."""
        if part == "text":
            lines = wrap(self.text, info.text_cols)[: info.text_rows]
            while len(core.encode_text(lines)) > core.MAX_MESSAGE:
                lines.pop()  # only a unit claiming a huge screen gets here
            return core.TEXT, core.encode_text(lines)
        if part == "lights":
            return core.LIGHTS, core.encode_lights(self.lights)
        return core.MATCH, self._encode_match(now)

    def _encode_match(self, now: float) -> bytes:
        match = self.match
        if match is None:
            return core.encode_match(0, 0, 0, 0, 0, core.NOBODY, 0, 0, core.NOBODY)
        flags = core.MATCH_SHOWN
        if match.crawford:
            flags |= core.MATCH_CRAWFORD
        if match.post_crawford:
            flags |= core.MATCH_POST_CRAWFORD
        white_ms = black_ms = 0
        running = core.NOBODY
        clock = match.clock
        if clock is not None:
            flags |= core.MATCH_CLOCK
            white, black = clock.white, clock.black
            elapsed = max(0.0, now - self.match_at)
            if clock.running == 0:
                white -= elapsed
            elif clock.running == 1:
                black -= elapsed
            white_ms = round(max(0.0, white) * 1000)
            black_ms = round(max(0.0, black) * 1000)
            running = _side_code(clock.running, "clock running")
        return core.encode_match(
            flags,
            match.score[0],
            match.score[1],
            match.match_length,
            match.cube_value.bit_length() - 1,
            _side_code(match.cube_owner, "cube owner"),
            white_ms,
            black_ms,
            running,
        )
