"""Outputs of the referee's signals to the table's devices: GPIO lights and buzzer, the display unit.

Each is an output of :class:`controller.service.Service` (``handle(signal)``)
and translates the referee's signals into the device's own API; the devices
never block (the display link queues, the buzzer beeps in the background).
"""

from __future__ import annotations

import logging
import queue

from controller.referee import Beep, Button, Display, Lights, PointLights, Press, Scoreboard
from firmware_bridge.events import ButtonPress, LinkChanged
from firmware_bridge.state import Clock, MatchState
from firmware_bridge.protocol_core import LOC_BAR, LOC_BLACK_TRAY, LOC_WHITE_TRAY

log = logging.getLogger("bgref.devices")

BEEPS = {"illegal": 3, "roll-again": 2, "attention": 1}
LOCATIONS = {"bar": LOC_BAR, "off-white": LOC_WHITE_TRAY, "off-black": LOC_BLACK_TRAY}


class GpioOutput:
    """Turn, ok and illegal LEDs and the buzzer (``hardware.gpio.TableSignals``)."""

    def __init__(self, signals):
        self.signals = signals

    def handle(self, signal) -> None:
        if isinstance(signal, Lights):
            self.signals.show_turn(None if signal.turn is None else int(signal.turn))
            if signal.illegal:
                self.signals.show_illegal(blink=True)
            elif signal.ok:
                self.signals.show_ok()
            else:
                self.signals.clear_verdict()
        elif isinstance(signal, Beep):
            self.signals.beep(n=BEEPS.get(signal.kind, 1))


def light_location(label: str) -> int:
    """The LED strip location of a referee point label ("1".."24", "bar", "off-white", "off-black")."""
    return int(label) if label.isdigit() else LOCATIONS[label]


class DisplayOutput:
    """The display unit over the serial link (``firmware_bridge.DisplayLink``)."""

    def __init__(self, link):
        self.link = link

    def handle(self, signal) -> None:
        if isinstance(signal, Display):
            self.link.show_text(signal.lines)
        elif isinstance(signal, Scoreboard):
            clock = None
            if signal.clock is not None:
                white, black, running = signal.clock
                clock = Clock(max(0.0, white), max(0.0, black), {"white": 0, "black": 1}.get(running))
            self.link.set_match_state(MatchState(
                score=signal.score, match_length=signal.length, crawford=signal.crawford,
                post_crawford=signal.post_crawford, cube_value=signal.cube,
                cube_owner=None if signal.owner is None else int(signal.owner), clock=clock))
        elif isinstance(signal, PointLights):
            self.link.light_points({light_location(k): (colour, signal.blink) for k, colour in signal.points.items()})
        elif isinstance(signal, Beep) and signal.kind == "illegal":
            self.link.beep()


def drain_presses(events: queue.Queue) -> list[Press]:
    """The button presses waiting on the table's event queue (GPIO and display unit).

    The display link's other news (link up or down, unit reset, lost message) is logged.
    """
    presses = []
    while True:
        try:
            event = events.get_nowait()
        except queue.Empty:
            return presses
        if isinstance(event, ButtonPress) and event.button in {b.value for b in Button}:
            presses.append(Press(Button(event.button), event.at))
        elif isinstance(event, LinkChanged):
            log.warning("display unit link %s: %s", event.state, event.detail)
        else:
            log.info("display unit: %s", event)
