"""Fuzzing both ends: no byte stream crashes or hangs the unit's firmware or the host session."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol_core as core
from firmware_bridge.events import LinkState
from firmware_bridge.host import HostSession
from firmware_bridge.state import DisplayState, MatchState, point_lights
from hardware.sim.display_unit import RecordedUnit

pytestmark = pytest.mark.timeout(120)
fuzz = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SESSION = 77


def unit_in_session() -> RecordedUnit:
    device = RecordedUnit(0, None, core.BOOT_POWER_ON, 1)
    device.unit.receive(core.encode_frame(core.HELLO, 0, core.encode_hello(SESSION)), 1)
    device.unit.step(1)
    assert device.unit.session == SESSION
    return device


def host_up() -> HostSession:
    display = DisplayState()
    display.set_text(("hello",))
    display.set_match(MatchState(score=(1, 2), match_length=5), 0.0)
    display.set_lights(point_lights({3: ("red", True)}))
    host = HostSession(display, 0.0, SESSION, "fuzz")
    host.transmit(0.0)
    host.receive(core.encode_frame(core.WELCOME, 0, core.encode_welcome(SESSION, (1, 0), 5, 16, 3, 14)), 0.01)
    assert host.state is LinkState.UP
    return host


def assert_screen_sane(device: RecordedUnit) -> None:
    cfg = device.unit.config
    assert len(device.screen.rows) == cfg["rows"]
    assert all(len(row) <= cfg["cols"] and all(32 <= ord(c) < 127 for c in row) for row in device.screen.rows)
    assert len(device.strip.pixels) == cfg["strip_length"]


chunks = st.lists(st.binary(max_size=200), max_size=20)


@fuzz
@given(chunks)
def test_random_bytes_never_break_the_unit(data):
    device = unit_in_session()
    for i, chunk in enumerate(data):
        device.unit.receive(chunk, 10 + i)
        device.unit.step(10 + i)
    assert_screen_sane(device)


@fuzz
@given(chunks)
def test_random_bytes_never_break_the_host(data):
    host = host_up()
    for i, chunk in enumerate(data):
        host.receive(chunk, 0.02 + i / 1000)
        host.transmit(0.02 + i / 1000)
    assert host.failed is None or "protocol version" in host.failed


# Frames with a correct CRC but any type, sequence number and payload: past the framing layer.
any_frames = st.lists(
    st.tuples(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=core.MAX_FRAGMENT)), max_size=40
)


@fuzz
@given(any_frames)
def test_well_framed_nonsense_never_breaks_the_unit(frames):
    device = unit_in_session()
    for i, frame in enumerate(frames):
        device.unit.receive(core.encode_frame(*frame), 10 + i)
        out = device.unit.step(10 + i)
        for ftype, _, payload in core.FrameDecoder().feed(out):
            assert ftype in (core.ACK, core.WELCOME, core.PONG, core.BOOT) or core.is_data(ftype)
    assert_screen_sane(device)


@fuzz
@given(any_frames)
def test_well_framed_nonsense_never_breaks_the_host(frames):
    host = host_up()
    for i, frame in enumerate(frames):
        host.receive(core.encode_frame(*frame), 0.02 + i / 1000)
        host.transmit(0.02 + i / 1000)


def conversation() -> tuple[bytes, bytes]:
    """What a host and a unit say to each other while the host shows a screen and the unit is pressed."""
    display = DisplayState()
    host = HostSession(display, 0.0, SESSION, "fuzz")
    device = RecordedUnit(0, None, core.BOOT_POWER_ON, 1)
    to_unit = bytearray()
    to_host = bytearray()
    for ms in range(0, 400):
        now = ms / 1000
        if ms == 50:
            display.set_text(("White to play", "6-5"))
            display.set_match(MatchState(score=(3, 4), match_length=7, cube_value=4, cube_owner=1), now)
            display.set_lights(point_lights({1: ("green", False), 12: ("red", True)}))
            device.unit.press(1, ms)
        out = host.transmit(now)
        to_unit += out
        device.unit.receive(out, ms)
        back = device.unit.step(ms)
        to_host += back
        host.receive(back, now)
    assert host.synced()
    return bytes(to_unit), bytes(to_host)


TO_UNIT, TO_HOST = conversation()


@st.composite
def mutated(draw, stream: bytes) -> list[bytes]:
    data = bytearray(stream)
    for _ in range(draw(st.integers(1, 30))):
        at = draw(st.integers(0, max(0, len(data) - 1)))
        action = draw(st.sampled_from(["flip", "drop", "insert", "repeat", "zero"]))
        if action == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "drop" and data:
            del data[at : at + draw(st.integers(1, 8))]
        elif action == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif action == "repeat":
            data[at:at] = data[at : at + draw(st.integers(1, 40))]
        elif data:
            data[at] = 0
    cuts = sorted(draw(st.lists(st.integers(0, len(data)), max_size=12)))
    return [bytes(data[a:b]) for a, b in zip([0] + cuts, cuts + [len(data)])]


@fuzz
@given(mutated(TO_UNIT))
def test_mutated_host_streams_never_break_the_unit(chunks):
    device = RecordedUnit(0, None, core.BOOT_POWER_ON, 1)
    for i, chunk in enumerate(chunks):
        device.unit.receive(chunk, i * 5)
        device.unit.step(i * 5)
    assert_screen_sane(device)


@fuzz
@given(mutated(TO_HOST))
def test_mutated_unit_streams_never_break_the_host(chunks):
    host = HostSession(DisplayState(), 0.0, SESSION, "fuzz")
    for i, chunk in enumerate(chunks):
        host.receive(chunk, i / 200)
        host.transmit(i / 200)
    assert host.failed is None
