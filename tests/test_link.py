"""DisplayLink, its threads and real ports, against the simulated unit on a pty or a socket."""

from __future__ import annotations

import os
import queue
import re
import threading
import tty

import pytest

from firmware_bridge import (
    BAR,
    ButtonPress,
    Clock,
    DisplayLink,
    LinkChanged,
    LinkState,
    MatchState,
    Timing,
    UnitError,
    UnitReset,
)
from firmware_bridge import protocol_core as core
from hardware.sim.display_unit import SimulatedDisplayUnit

pytestmark = pytest.mark.timeout(60)

CONNECT = 5.0  # generous: first contact on a loaded machine
WITHIN = 1.0  # the promise: the screen is back within one second

TEXT = ("Black rolled 6-1", "13/7 8/7")
MATCH = MatchState(score=(2, 4), match_length=9, cube_value=2, cube_owner=0, clock=Clock(600, 540, running=1))
LIGHTS = {7: ("green", False), 13: ("green", True), BAR: ("red", True)}


def show(link: DisplayLink) -> None:
    link.set_match_state(MATCH)
    link.show_text(TEXT)
    link.light_points(LIGHTS)


def shown(snapshot) -> bool:
    return (
        snapshot.text == TEXT
        and snapshot.rows[0] == "W 2  B 4      /9"
        and set(snapshot.lights) == {7, 13, BAR}
        and snapshot.lights[BAR] == ((255, 0, 0), True)
    )


def drain(events: queue.Queue) -> list:
    out = []
    while True:
        try:
            out.append(events.get_nowait())
        except queue.Empty:
            return out


@pytest.fixture
def pty_unit(tmp_path):
    with SimulatedDisplayUnit(link=tmp_path / "ttyBGREF0") as unit:
        yield unit


def test_link_comes_up_and_the_unit_shows_the_screen(pty_unit):
    with DisplayLink(str(pty_unit.url)) as link:
        show(link)
        assert link.wait_for_state(LinkState.UP, CONNECT)
        assert pty_unit.wait_until(shown, CONNECT)
        assert link.wait_synced(CONNECT)
        assert link.port == pty_unit.url
        assert link.unit.text_rows == 5 and link.unit.buzzer
        assert re.fullmatch(r"W 10:00   B\*(9:00|8:5\d)", pty_unit.snapshot().rows[2])  # Black's clock runs
        assert link.beep(1000, 0.05)
        assert pty_unit.wait_until(lambda s: s.beeps == 1, CONNECT)
        link.clear()
        assert pty_unit.wait_until(lambda s: s.text == () and s.lights == {} and s.match is None, CONNECT)


def test_socket_url_reaches_the_same_unit():
    with SimulatedDisplayUnit(transport="tcp") as unit, DisplayLink(unit.url) as link:
        assert unit.url.startswith("socket://127.0.0.1:")
        show(link)
        assert unit.wait_until(shown, CONNECT)


def test_unit_buttons_reach_the_shared_event_queue(pty_unit):
    events: queue.Queue = queue.Queue()
    with DisplayLink(pty_unit.url, events=events) as link:
        assert link.wait_for_state(LinkState.UP, CONNECT)
        for button in ("undo", "accept", "menu"):
            pty_unit.press(button)
        presses = []
        while len(presses) < 3:
            event = events.get(timeout=CONNECT)
            if isinstance(event, ButtonPress):
                presses.append((event.button, event.source))
        assert presses == [("undo", "display"), ("accept", "display"), ("menu", "display")]


def test_after_a_unit_reset_the_screen_is_back_within_one_second(pty_unit):
    with DisplayLink(pty_unit.url) as link:
        show(link)
        assert link.wait_synced(CONNECT)
        drain(link.events)
        pty_unit.reset()
        assert not shown(pty_unit.snapshot())
        assert pty_unit.wait_until(shown, WITHIN)
        assert any(isinstance(e, UnitReset) for e in drain(link.events))


def test_after_a_replug_under_a_new_name_the_screen_is_back_within_one_second(tmp_path, pty_unit):
    with DisplayLink([str(tmp_path / "ttyBGREF*")]) as link:
        show(link)
        assert link.wait_synced(CONNECT)
        first = link.port
        pty_unit.unplug()
        assert link.wait_for_state(LinkState.DOWN, CONNECT)
        assert "read failed" in link.detail or "write failed" in link.detail
        link.show_text(["while unplugged"])  # the referee carries on
        pty_unit.replug(new_name=True)
        assert pty_unit.url == str(tmp_path / "ttyBGREF1")
        assert pty_unit.wait_until(lambda s: s.text == ("while unplugged",) and s.match is not None, WITHIN)
        assert link.port == str(tmp_path / "ttyBGREF1") != first
        states = [e.state for e in drain(link.events) if isinstance(e, LinkChanged)]
        assert states[-3:] == [LinkState.DOWN, LinkState.HANDSHAKING, LinkState.UP]


def test_socket_unit_unplugged_and_plugged_back_is_found_again():
    with SimulatedDisplayUnit(transport="tcp") as unit, DisplayLink(unit.url) as link:
        show(link)
        assert link.wait_synced(CONNECT)
        unit.unplug()
        assert link.wait_for_state(LinkState.DOWN, CONNECT)
        unit.replug()
        assert unit.wait_until(shown, WITHIN)


def test_candidates_are_tried_in_turn(tmp_path, pty_unit):
    missing = str(tmp_path / "nothing-here")
    with DisplayLink([missing, "socket://127.0.0.1:1", pty_unit.url]) as link:
        assert link.wait_for_state(LinkState.UP, CONNECT)
        assert link.port == pty_unit.url


def test_an_absent_unit_costs_the_referee_nothing(tmp_path):
    port = str(tmp_path / "ttyACM9")
    with DisplayLink(port) as link:
        for i in range(2000):  # would hang here if a setter waited for the port
            link.show_text([f"line {i}"])
            link.light_points({i % 24 + 1: ("red", i % 2 == 0)})
            link.set_match_state(MatchState(score=(i % 7, 0), match_length=7))
        assert link.beep() is False
        assert link.state is LinkState.DOWN
        assert link.wait_for_state(LinkState.DOWN, CONNECT)
        assert port in link.detail
        assert link.unit is None


class StalledPort:
    """A port whose writes hang until released: a unit that stopped reading."""

    def __init__(self):
        self.writing = threading.Event()
        self.release = threading.Event()
        self.in_waiting = 0

    def write(self, data):
        self.writing.set()
        self.release.wait()
        return len(data)

    def read(self, size):
        self.release.wait(0.05)
        return b""

    def close(self):
        self.release.set()


def test_a_unit_that_stopped_reading_costs_the_referee_nothing(monkeypatch):
    port = StalledPort()
    monkeypatch.setattr("firmware_bridge.link.serial.serial_for_url", lambda url, **kwargs: port)
    with DisplayLink("/dev/ttyACM0") as link:
        assert port.writing.wait(CONNECT)  # the link thread is stuck in write()

        def referee():
            for i in range(500):
                link.show_text([f"line {i}"])
                link.set_match_state(MatchState(score=(i % 5, 1), match_length=5))
                link.light_points({i % 24 + 1: ("green", False)})
                link.beep()
            _ = link.state, link.detail, link.unit

        caller = threading.Thread(target=referee)
        caller.start()
        caller.join(CONNECT)
        stuck = caller.is_alive()
        port.release.set()
        caller.join()
        assert not stuck, "a setter waited for the port"


def test_a_port_that_never_answers_is_closed_and_tried_again():
    master, slave = os.openpty()
    tty.setraw(master)
    try:
        timing = Timing(handshake_timeout=0.3)
        with DisplayLink(os.ttyname(slave), timing=timing) as link:
            got = []
            while len(got) < 2:
                event = link.events.get(timeout=CONNECT)
                if isinstance(event, LinkChanged) and event.state is LinkState.DOWN:
                    got.append(event.detail)
            assert got[0] == f"no display unit answered on {os.ttyname(slave)}"
            assert os.read(master, 4096)  # it said HELLO
    finally:
        os.close(master)
        os.close(slave)


def test_setters_reject_bad_values_in_the_callers_thread(pty_unit):
    with DisplayLink(pty_unit.url) as link:
        with pytest.raises(ValueError, match="unknown colour 'purple'"):
            link.light_points({3: ("purple", False)})
        with pytest.raises(ValueError, match="light location"):
            link.light_points({30: ("red", False)})
        with pytest.raises(ValueError, match="cube value"):
            link.set_match_state(MatchState(cube_value=3))
        with pytest.raises(ValueError, match="beep"):
            link.beep(frequency=5)
        with pytest.raises(ValueError, match="text lines"):
            link.show_text([1, 2])
    with pytest.raises(ValueError, match="display ports"):
        DisplayLink([])


def test_with_5_percent_of_bytes_damaged_the_screen_converges_and_presses_arrive_once(pty_unit):
    pty_unit.faults.drop = pty_unit.faults.corrupt = 0.025
    pressed = ["accept" if i % 2 else "undo" for i in range(10)]
    with DisplayLink(pty_unit.url) as link:
        assert link.wait_for_state(LinkState.UP, 30)
        for i, button in enumerate(pressed):
            link.show_text([f"move {i}", "x" * 16])
            pty_unit.press(button)
        show(link)
        assert pty_unit.wait_until(shown, 30)
        pty_unit.faults.drop = pty_unit.faults.corrupt = 0.0
        assert link.wait_synced(30)
        assert pty_unit.wait_until(lambda s: not pty_unit.unit._channel.pending(), 30)
        events = drain(link.events)
    got = [e.button for e in events if isinstance(e, ButtonPress)]
    it = iter(pressed)
    assert all(any(g == p for p in it) for g in got), "presses doubled or out of order"
    reported = sum(
        int(e.message.split(": ")[1].split()[0]) for e in events if isinstance(e, UnitError) and e.code == core.ERR_LOST
    )
    assert len(pressed) - len(got) <= reported


def test_close_stops_the_threads_and_frees_the_port(pty_unit):
    link = DisplayLink(pty_unit.url)
    assert link.wait_for_state(LinkState.UP, CONNECT)
    link.close()
    assert link.state is LinkState.DOWN
    assert not any(t.name.startswith("bgref-display") and t.is_alive() for t in threading.enumerate())
    with DisplayLink(pty_unit.url) as again:  # exclusive access was released
        assert again.wait_for_state(LinkState.UP, CONNECT)


def test_long_lines_are_broken_at_words_to_the_units_width(pty_unit):
    with DisplayLink(pty_unit.url) as link:
        assert link.wait_for_state(LinkState.UP, 30)
        link.show_text(("Illegal: a checker on the bar must enter first",))
        assert pty_unit.wait_until(
            lambda s: s.text == ("Illegal: a", "checker on the", "bar must enter", "first"), 30)
