"""What the table's inputs tell the referee: button presses and the display link's news.

``DisplayLink`` and ``hardware.gpio.TableSignals`` put these on a
``queue.Queue`` the referee reads (they may share one queue). ``at`` is
``time.monotonic()`` when the event was seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class LinkState(str, Enum):
    """The display link: no port open, port open and handshaking, or in session with the unit."""

    DOWN = "down"
    HANDSHAKING = "handshaking"
    UP = "up"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ButtonPress:
    """A press of ``button`` ("accept", "undo" or "menu") on ``source`` ("gpio" or "display")."""

    button: str
    source: str
    at: float


@dataclass(frozen=True)
class LinkChanged:
    """The display link went to ``state``; ``detail`` says why, naming the port."""

    state: LinkState
    detail: str
    at: float


@dataclass(frozen=True)
class UnitReset:
    """The display unit restarted or lost its session (``reason``); the link restores its screen."""

    reason: str
    at: float


@dataclass(frozen=True)
class UnitError:
    """The display unit reported an error (``code`` from the protocol, ``message`` its text)."""

    code: int
    message: str
    at: float


@dataclass(frozen=True)
class MessageLost:
    """A message (``kind``: text, match, lights, clear or beep) was never acknowledged.

    It may or may not have reached the unit. Lost screen contents are sent
    again once the link is back; a lost beep is not.
    """

    kind: str
    at: float
