"""The host session against the unit's firmware over a simulated cable, in simulated time.

Simulated time makes these exact: "within one second" is measured on the
simulated clock, and the same seed always gives the same faults.
"""

from __future__ import annotations

import random

import pytest

from firmware_bridge import protocol_core as core
from firmware_bridge.events import ButtonPress, LinkChanged, LinkState, MessageLost, UnitError, UnitReset
from firmware_bridge.host import HostSession, Timing
from firmware_bridge.state import Clock, DisplayState, MatchState, point_lights
from hardware.sim.cable import Faults
from hardware.sim.virtual_link import VirtualLink

MATCH = MatchState(score=(3, 5), match_length=7, crawford=True, cube_value=4, cube_owner=1)
LIGHTS = point_lights({8: ("red", True), 13: ("amber", False), 25: ("green", True)})
TEXT = ("Illegal 13/7 6/5", "Black to correct")


def show_everything(link: VirtualLink) -> None:
    link.display.set_match(MATCH, link.now)
    link.display.set_text(TEXT)
    link.display.set_lights(LIGHTS)


def shows_everything(link: VirtualLink) -> bool:
    snap = link.snapshot()
    return (
        snap.text == TEXT
        and snap.rows[0] == "W 3  B 5      /7"
        and {loc: (rgb, mode) for loc, rgb, mode in LIGHTS} == {
            loc: (rgb, core.LIGHT_BLINK if blink else core.LIGHT_STEADY) for loc, (rgb, blink) in snap.lights.items()
        }
    )


def of(link: VirtualLink, kind: type) -> list:
    return [e for e in link.events if isinstance(e, kind)]


def test_handshake_then_the_screen_follows_the_host():
    link = VirtualLink()
    show_everything(link)
    assert link.run_until(lambda v: v.host.synced(), 1.0) is not None
    assert shows_everything(link)
    assert [e.state for e in of(link, LinkChanged)] == [LinkState.HANDSHAKING, LinkState.UP]
    assert link.host.info.buttons == ("accept", "undo", "menu")
    link.display.clear()
    assert link.run_until(lambda v: v.host.synced(), 1.0) is not None
    snap = link.snapshot()
    assert snap.text == () and snap.lights == {} and snap.match is None


def test_a_burst_of_updates_is_coalesced_to_the_latest():
    link = VirtualLink()
    link.run_until(lambda v: v.host.state is LinkState.UP, 1.0)
    sent_before = link.to_unit.sent
    for i in range(200):
        link.display.set_text((f"update {i}", "x" * 16))
        link.step()
    assert link.run_until(lambda v: v.host.synced(), 2.0) is not None
    assert link.snapshot().text == ("update 199", "x" * 16)
    one_text = len(core.encode_frame(core.TEXT, 0, bytes(16))) * 3
    assert link.to_unit.sent - sent_before < 60 * one_text  # far fewer than 200 messages


def test_unit_buttons_become_events():
    link = VirtualLink()
    link.run_until(lambda v: v.host.state is LinkState.UP, 1.0)
    for button in (1, 3, 2):
        link.unit.press(button, link._ms())
        link.run(0.01)
    assert [e.button for e in of(link, ButtonPress)] == ["accept", "menu", "undo"]
    assert all(e.source == "display" for e in of(link, ButtonPress))


@pytest.mark.parametrize("rate, seed", [(0.05, 1), (0.05, 2), (0.05, 3), (0.15, 2)])
def test_with_damaged_bytes_nothing_is_doubled_reordered_or_silently_lost(rate, seed):
    """Beeps (host to unit) and presses (unit to host) each arrive once and in order, or are reported.

    At 5% of bytes dropped or corrupted all of them arrive; at 15% many are
    lost, and every one of those is reported.
    """
    rng = random.Random(seed)
    link = VirtualLink(faults=Faults(drop=rate / 2, corrupt=rate / 2), seed=seed)
    link.run_until(lambda v: v.host.state is LinkState.UP, 30.0)
    beeps, presses = [], []
    for i in range(60):
        link.display.set_text(tuple(f"move {i} line {k}" for k in range(5)))
        if link.host.beep(200 + i, 5):
            beeps.append(200 + i)
        button = rng.choice((1, 2, 3))
        if link.unit.session:
            presses.append(core.BUTTON_NAMES[button])
            link.unit.press(button, link._ms())
        link.run(0.1)
    link.faults.drop = link.faults.corrupt = 0.0
    assert link.run_until(lambda v: v.host.synced() and not v.unit._channel.pending(), 10.0) is not None
    assert link.snapshot().text == link.display.text

    heard = link.device.buzzer.tones
    assert heard == sorted(set(heard)) and set(heard) <= set(beeps)
    lost_beeps = [e for e in of(link, MessageLost) if e.kind == "beep"]
    assert len(beeps) - len(heard) <= len(lost_beeps)

    got = [e.button for e in of(link, ButtonPress)]
    it = iter(presses)
    assert all(any(g == p for p in it) for g in got), "presses doubled or out of order"
    reported = sum(int(e.message.split(": ")[1].split()[0]) for e in of(link, UnitError) if e.code == core.ERR_LOST)
    assert len(presses) - len(got) <= reported
    if rate == 0.05:
        assert (len(heard), len(got)) == (len(beeps), len(presses)) == (60, 60)
    else:
        assert lost_beeps and len(heard) < len(beeps)


def test_after_a_unit_reset_the_screen_is_back_within_one_second():
    link = VirtualLink()
    show_everything(link)
    link.run_until(lambda v: v.host.synced(), 1.0)
    link.reset_unit(core.BOOT_WATCHDOG)
    assert not shows_everything(link)
    took = link.run_until(shows_everything, 1.0)
    assert took is not None
    assert [e.reason for e in of(link, UnitReset)] == ["watchdog"]


def test_after_a_replug_the_screen_is_back_within_one_second():
    link = VirtualLink()
    show_everything(link)
    link.run_until(lambda v: v.host.synced(), 1.0)
    link.replug()
    assert link.run_until(shows_everything, 1.0) is not None


def test_a_reset_whose_boot_is_lost_is_found_by_the_heartbeat():
    link = VirtualLink()
    show_everything(link)
    link.run_until(lambda v: v.host.synced(), 1.0)
    link.reset_unit()
    link.unit.step(link._ms())  # the BOOT frame goes nowhere
    assert link.run_until(shows_everything, 1.0) is not None
    assert [e.reason for e in of(link, UnitReset)] == ["session lost"]


def test_the_clock_sent_again_after_a_reset_is_the_current_one():
    link = VirtualLink()
    link.display.set_match(MatchState(clock=Clock(white=300, black=200, running=0)), link.now)
    link.run_until(lambda v: v.host.synced(), 1.0)
    link.run(10.0)
    link.reset_unit()
    link.run_until(lambda v: v.snapshot().match is not None, 1.0)
    assert link.snapshot().rows[2] == "W*4:50    B 3:20"


def test_a_silent_unit_makes_the_host_handshake_again_then_give_up_the_port():
    link = VirtualLink()
    show_everything(link)
    link.run_until(lambda v: v.host.synced(), 1.0)
    link.faults.drop = 1.0
    link.run(2.5)
    changes = [(e.state, e.detail) for e in of(link, LinkChanged)]
    assert changes[-1] == (LinkState.HANDSHAKING, "display unit on virtual silent for 2 s")
    first = link.host
    link.run(2.0)
    assert link.host is not first  # handshake timed out: the port was closed and opened again
    link.faults.drop = 0.0
    assert link.run_until(lambda v: v.host.synced(), 1.0) is not None
    assert shows_everything(link)


def test_a_unit_of_another_protocol_version_is_refused_with_both_versions_named():
    host = HostSession(DisplayState(), 0.0, 5, "/dev/ttyACM0")
    host.transmit(0.0)
    host.receive(core.encode_frame(core.WELCOME, 0, bytes((core.PROTOCOL_VERSION + 1,))), 0.01)
    assert host.state is LinkState.HANDSHAKING
    assert host.failed == (
        f"the display unit on /dev/ttyACM0 speaks protocol version {core.PROTOCOL_VERSION + 1}, "
        f"bgref speaks {core.PROTOCOL_VERSION}: update its firmware"
    )
    assert host.transmit(0.02) == b""


def test_beeps_need_an_up_link_and_a_buzzer():
    link = VirtualLink(config={"buzzer": False, "strip_length": 0})
    assert link.host.beep(2000, 100) is False  # still handshaking
    show_everything(link)
    assert link.run_until(lambda v: v.host.synced(), 1.0) is not None
    assert link.host.beep(2000, 100) is False
    assert link.snapshot().lights == {}  # no strip: the lights were never sent
    assert link.host.info.lights is False


def test_a_welcome_for_an_older_session_is_ignored():
    host = HostSession(DisplayState(), 0.0, 9, "p")
    host.transmit(0.0)
    host.receive(core.encode_frame(core.WELCOME, 0, core.encode_welcome(8, (1, 0), 5, 16, 3, 14)), 0.01)
    assert host.state is LinkState.HANDSHAKING
    host.receive(core.encode_frame(core.WELCOME, 0, core.encode_welcome(9, (1, 0), 5, 16, 3, 14)), 0.02)
    assert host.state is LinkState.UP


def test_next_timeout_never_oversleeps_a_due_hello_or_heartbeat():
    timing = Timing()
    link = VirtualLink(timing=timing)
    assert link.host.next_timeout(0.0) == 0.0  # HELLO due at once
    link.run_until(lambda v: v.host.synced(), 1.0)
    wait = link.host.next_timeout(link.now)
    assert 0 < wait <= timing.heartbeat
