"""The serial protocol between the referee and the display unit (docs/protocol.md).

The referee uses ``DisplayLink`` and the values it takes; events arrive on its queue.
"""

from firmware_bridge.events import ButtonPress, LinkChanged, LinkState, MessageLost, UnitError, UnitReset
from firmware_bridge.host import Timing
from firmware_bridge.link import DisplayLink
from firmware_bridge.state import BAR, BLACK_TRAY, COLOURS, WHITE_TRAY, Clock, MatchState, UnitInfo

__all__ = [
    "BAR",
    "BLACK_TRAY",
    "COLOURS",
    "WHITE_TRAY",
    "ButtonPress",
    "Clock",
    "DisplayLink",
    "LinkChanged",
    "LinkState",
    "MatchState",
    "MessageLost",
    "Timing",
    "UnitError",
    "UnitInfo",
    "UnitReset",
]
