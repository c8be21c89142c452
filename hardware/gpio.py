"""The referee's lights, buzzer and buttons on the Raspberry Pi's GPIO header (gpiozero).

Wiring: each LED (a turn LED per side, a green "ok" and a red "illegal")
from its GPIO pin through a resistor to ground; an active buzzer from its pin
to ground (through a transistor if it draws more than a few mA); the
ACCEPT, UNDO and MENU push buttons from their pins to ground (the internal
pull-ups hold them high). The pins come from the configuration file as a
map from role to pin, in any form gpiozero accepts (``17``, ``"GPIO17"``,
``"BOARD11"``); a role left out is a device not fitted. ``DEFAULT_PINS`` is
the wiring of the configuration file's defaults (BCM numbers).

>>> from gpiozero.pins.mock import MockFactory
>>> signals = TableSignals(DEFAULT_PINS, pin_factory=MockFactory())
>>> signals.show_turn(0)
>>> signals.turn
0
>>> signals.close()

Button presses go to ``events`` (a ``queue.Queue`` the referee reads, which
it may share with ``DisplayLink``) as ``ButtonPress(button, "gpio", at)``.
Nothing here blocks the caller unless asked to (``beep(background=False)``).
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Mapping

from gpiozero import LED, Button, Buzzer, GPIOZeroError

from firmware_bridge.events import ButtonPress

LIGHTS = ("turn_white", "turn_black", "ok", "illegal")
BUTTONS = ("accept", "undo", "menu")
ROLES = LIGHTS + ("buzzer",) + BUTTONS

DEFAULT_PINS = {
    "turn_white": 17,
    "turn_black": 27,
    "ok": 22,
    "illegal": 23,
    "buzzer": 24,
    "accept": 5,
    "undo": 6,
    "menu": 13,
}

BLINK_ON = 0.25  # seconds lit of a blinking "illegal" LED
BLINK_OFF = 0.25


class TableSignals:
    """The turn, ok and illegal LEDs, the buzzer and the three buttons, on ``pins``.

    ``pin_factory`` is passed to every device (gpiozero's ``MockFactory`` in
    tests; None for the Pi's default). ``bounce_time`` (seconds) ignores
    contact bounce of the buttons. ``clock`` stamps the presses.
    """

    def __init__(
        self,
        pins: Mapping[str, int | str],
        *,
        events: queue.Queue | None = None,
        pin_factory=None,
        bounce_time: float | None = 0.02,
        clock: Callable[[], float] = time.monotonic,
    ):
        unknown = sorted(set(pins) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown GPIO role {', '.join(map(repr, unknown))} in the pin map; roles: {', '.join(ROLES)}")
        seen: dict[str, str] = {}
        for role, pin in pins.items():
            if str(pin) in seen:
                raise ValueError(f"GPIO pin {pin} is given to both {seen[str(pin)]} and {role}")
            seen[str(pin)] = role
        self.events: queue.Queue = events if events is not None else queue.Queue()
        self._clock = clock
        self._devices: dict[str, LED | Buzzer | Button] = {}
        self._turn: int | None = None
        self._verdict: str | None = None
        try:
            for role, pin in pins.items():
                if role in LIGHTS:
                    self._devices[role] = LED(pin, pin_factory=pin_factory)
                elif role == "buzzer":
                    self._devices[role] = Buzzer(pin, pin_factory=pin_factory)
                else:
                    button = Button(pin, pull_up=True, bounce_time=bounce_time, pin_factory=pin_factory)
                    button.when_pressed = self._on_press(role)
                    self._devices[role] = button
        except (GPIOZeroError, ValueError) as err:
            self.close()
            raise ValueError(f"GPIO {role} on pin {pin}: {err}") from err

    def _on_press(self, role: str) -> Callable[[], None]:
        def pressed() -> None:
            self.events.put(ButtonPress(role, "gpio", self._clock()))

        return pressed

    def fitted(self, role: str) -> bool:
        """Whether the pin map has a device for ``role``."""
        return role in self._devices

    # ------------------------------------------------------------ signals

    def show_turn(self, side: int | None) -> None:
        """Light the turn LED of ``side`` (0 White, 1 Black) only; None lights neither."""
        if side not in (0, 1, None):
            raise ValueError(f"side must be 0 (White), 1 (Black) or None, not {side!r}")
        self._turn = side
        self._set("turn_white", side == 0)
        self._set("turn_black", side == 1)

    @property
    def turn(self) -> int | None:
        """The side whose turn LED is lit, or None."""
        return self._turn

    def show_ok(self) -> None:
        """Green on, red off: the last move stands."""
        self._verdict = "ok"
        self._set("illegal", False)
        self._set("ok", True)

    def show_illegal(self, blink: bool = True) -> None:
        """Red on (blinking unless ``blink`` is False), green off: an illegal move is on the board."""
        self._verdict = "illegal"
        self._set("ok", False)
        led = self._devices.get("illegal")
        if led is not None:
            if blink:
                led.blink(on_time=BLINK_ON, off_time=BLINK_OFF, background=True)
            else:
                led.on()

    def clear_verdict(self) -> None:
        """Green and red off."""
        self._verdict = None
        self._set("ok", False)
        self._set("illegal", False)

    @property
    def verdict(self) -> str | None:
        """What the verdict LEDs say: "ok", "illegal" or None."""
        return self._verdict

    def beep(self, n: int = 1, on_time: float = 0.1, off_time: float = 0.1, background: bool = True) -> None:
        """Sound the buzzer ``n`` times; with ``background=False`` return when it is done."""
        buzzer = self._devices.get("buzzer")
        if buzzer is not None:
            buzzer.beep(on_time=on_time, off_time=off_time, n=n, background=background)

    def _set(self, role: str, on: bool) -> None:
        device = self._devices.get(role)
        if device is None:
            return
        if on:
            device.on()
        else:
            device.off()

    def close(self) -> None:
        """Release every pin (the LEDs and buzzer go off)."""
        for device in self._devices.values():
            device.close()
        self._devices.clear()

    def __enter__(self) -> TableSignals:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
