"""The table's LEDs, buzzer and buttons, through gpiozero's MockFactory pin histories."""

from __future__ import annotations

import queue
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware_bridge.events import ButtonPress
from hardware.gpio import DEFAULT_PINS, TableSignals

PINS = DEFAULT_PINS


@pytest.fixture
def factory():
    """A fresh mock factory; the test fails if any device fell back to the default factory."""
    saved = Device.pin_factory
    Device.pin_factory = None
    mock = MockFactory()
    try:
        yield mock
        assert Device.pin_factory is None, "a device used the default pin factory instead of the injected one"
    finally:
        mock.reset()
        Device.pin_factory = saved


@pytest.fixture
def signals(factory):
    events: queue.Queue = queue.Queue()
    with TableSignals(PINS, pin_factory=factory, events=events, bounce_time=None, clock=lambda: 12.5) as table:
        yield table


def states(factory, role: str) -> list:
    return [s.state for s in factory.pin(PINS[role]).states]


def wait_for(condition, timeout: float = 5.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` passes (for gpiozero's background threads)."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.005)
    return True


def test_turn_leds_follow_the_side_on_roll(factory, signals):
    signals.show_turn(0)
    signals.show_turn(1)
    signals.show_turn(None)
    factory.pin(PINS["turn_white"]).assert_states([False, True, False])
    factory.pin(PINS["turn_black"]).assert_states([False, True, False])
    assert signals.turn is None
    with pytest.raises(ValueError, match="side must be"):
        signals.show_turn(2)


def test_ok_and_steady_illegal_leds_exclude_each_other(factory, signals):
    signals.show_ok()
    signals.show_illegal(blink=False)
    assert signals.verdict == "illegal"
    signals.show_ok()
    signals.clear_verdict()
    factory.pin(PINS["ok"]).assert_states([False, True, False, True, False])
    factory.pin(PINS["illegal"]).assert_states([False, True, False])
    assert signals.verdict is None


def test_illegal_led_blinks_until_cleared(factory, signals):
    signals.show_illegal()
    assert wait_for(lambda: len(factory.pin(PINS["illegal"]).states) >= 4)
    signals.show_ok()
    history = states(factory, "illegal")
    assert history[:4] == [False, True, False, True]
    assert all(a != b for a, b in zip(history, history[1:]))  # a clean on/off alternation
    assert history[-1] is False and factory.pin(PINS["ok"]).state is True


def test_buzzer_beeps_n_times(factory, signals):
    signals.beep(n=2, on_time=0.01, off_time=0.01, background=False)
    factory.pin(PINS["buzzer"]).assert_states([False, True, False, True, False])


def test_buttons_reach_the_event_queue(factory, signals):
    for role in ("accept", "menu", "undo"):
        pin = factory.pin(PINS[role])
        pin.drive_low()
        pin.drive_high()
    got = [signals.events.get_nowait() for _ in range(3)]
    assert got == [
        ButtonPress("accept", "gpio", 12.5),
        ButtonPress("menu", "gpio", 12.5),
        ButtonPress("undo", "gpio", 12.5),
    ]
    assert signals.events.empty()


def test_a_pin_map_without_some_devices_leaves_them_out(factory):
    with TableSignals({"accept": 5, "ok": 22}, pin_factory=factory) as table:
        assert table.fitted("accept") and not table.fitted("illegal")
        table.show_illegal()  # nothing fitted to show it: no error
        table.show_ok()
        table.beep(background=False)
        factory.pin(22).assert_states([False, True])


@pytest.mark.parametrize(
    "pins, message",
    [
        ({"acept": 5}, "unknown GPIO role 'acept'"),
        ({"accept": 5, "undo": 5}, "GPIO pin 5 is given to both accept and undo"),
        ({"ok": "GPIO99"}, "GPIO ok on pin GPIO99"),
    ],
)
def test_bad_pin_maps_are_refused_by_name(factory, pins, message):
    with pytest.raises(ValueError, match=message):
        TableSignals(pins, pin_factory=factory)


def test_close_releases_the_pins(factory):
    table = TableSignals(PINS, pin_factory=factory)
    table.show_ok()
    table.close()
    again = TableSignals(PINS, pin_factory=factory)  # the pins are free again
    again.close()
