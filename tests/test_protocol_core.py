"""The shared protocol core: CRC, COBS, frames, payloads and the reliable channel."""

from __future__ import annotations

import ast
import random
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import protocol_core as core
from hardware.sim.cable import Faults, Wire

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- CRC and COBS


def test_crc32_matches_the_standard_check_value():
    assert core.crc32(b"123456789") == 0xCBF43926
    assert core.crc32_python(b"123456789") == 0xCBF43926


@given(st.binary(max_size=300))
def test_pure_python_crc32_equals_zlib(data):
    assert core.crc32_python(data) == zlib.crc32(data)


@given(st.binary(max_size=700))
def test_cobs_round_trip_has_no_zero_bytes(data):
    encoded = core.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert core.cobs_decode(encoded) == data


@pytest.mark.parametrize(
    "data, encoded",
    [
        (b"", b"\x01"),
        (b"\x00", b"\x01\x01"),
        (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
        (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
        (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255)) + b"\x01"),
    ],
)
def test_cobs_known_encodings(data, encoded):
    assert core.cobs_encode(data) == encoded
    assert core.cobs_decode(encoded) == data


@pytest.mark.parametrize("bad", [b"\x00", b"\x05\x01\x02", b"\x03\x01\x00"])
def test_cobs_decode_rejects_damaged_blocks(bad):
    with pytest.raises(core.ProtocolError):
        core.cobs_decode(bad)


# ---------------------------------------------------------------- frames


def test_frame_layout_byte_by_byte():
    wire = core.encode_frame(core.TEXT, 7, b"\x01\x02hi")
    assert wire[0] == 0 and wire[-1] == 0
    body = core.cobs_decode(wire[1:-1])
    assert body[:2] == bytes((core.TEXT, 7))
    assert body[2:-4] == b"\x01\x02hi"
    assert int.from_bytes(body[-4:], "little") == zlib.crc32(body[:-4])


def test_frame_payload_is_limited_to_one_fragment():
    with pytest.raises(core.ProtocolError):
        core.encode_frame(core.TEXT, 0, bytes(core.MAX_FRAGMENT + 1))


frame_specs = st.tuples(
    st.integers(0, 255), st.integers(0, 255), st.binary(max_size=core.MAX_FRAGMENT)
)


@given(st.lists(frame_specs, max_size=8), st.lists(st.binary(max_size=60), max_size=9))
def test_valid_frames_survive_any_garbage_between_them(frames, garbage):
    """Garbage before, between and after frames never costs a valid frame."""
    stream = bytearray()
    for i, (ftype, seq, payload) in enumerate(frames):
        stream += garbage[i] if i < len(garbage) else b""
        stream += core.encode_frame(ftype, seq, payload)
    stream += garbage[-1] if garbage else b""
    decoder = core.FrameDecoder()
    got = decoder.feed(bytes(stream))
    expected = [(t, s, p) for t, s, p in frames]
    # Garbage can (with probability 2**-32) pass as a frame; none of the valid ones may be missing.
    it = iter(got)
    assert all(any(frame == g for g in it) for frame in expected)


@given(st.lists(frame_specs, min_size=1, max_size=6), st.data())
def test_frames_split_at_any_points_decode_the_same(frames, data):
    stream = b"".join(core.encode_frame(*f) for f in frames)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder = core.FrameDecoder()
    got = []
    start = 0
    for cut in cuts + [len(stream)]:
        got += decoder.feed(stream[start:cut])
        start = cut
    assert got == [(t, s, p) for t, s, p in frames]


def test_decoder_drops_damaged_and_overlong_frames_and_counts_them():
    good = core.encode_frame(core.PING, 0)
    damaged = bytearray(core.encode_frame(core.PONG, 0, b"\x00\x05"))
    damaged[3] ^= 0x40
    decoder = core.FrameDecoder()
    assert decoder.feed(bytes(damaged) + b"\x07" * 500 + good) == [(core.PING, 0, b"")]
    assert decoder.dropped == 2


# ---------------------------------------------------------------- payloads


@given(st.lists(st.text(max_size=30), max_size=8))
def test_text_round_trip(lines):
    assert core.decode_text(core.encode_text(lines)) == lines


@given(
    st.tuples(
        st.integers(0, 15),
        st.integers(0, 0xFFFF),
        st.integers(0, 0xFFFF),
        st.integers(0, 0xFFFF),
        st.integers(0, 15),
        st.integers(0, 2),
        st.integers(0, 0xFFFFFFFF),
        st.integers(0, 0xFFFFFFFF),
        st.integers(0, 2),
    )
)
def test_match_round_trip(fields):
    assert core.decode_match(core.encode_match(*fields)) == fields


@given(
    st.lists(
        st.tuples(st.integers(1, core.LOCATIONS), st.tuples(*[st.integers(0, 255)] * 3), st.integers(0, 1)),
        max_size=27,
    )
)
def test_lights_round_trip(lights):
    assert core.decode_lights(core.encode_lights(lights)) == lights


def test_control_and_small_payloads_round_trip():
    assert core.decode_hello(core.encode_hello(513)) == 513
    welcome = core.encode_welcome(9, (1, 2), 5, 16, core.FEATURE_BUZZER, 0b1110)
    assert core.decode_welcome(welcome) == (9, (1, 2), 5, 16, core.FEATURE_BUZZER, 0b1110)
    assert core.decode_session(core.encode_session(65535)) == 65535
    assert core.decode_beep(core.encode_beep(2000, 150)) == (2000, 150)
    assert core.decode_button(core.encode_button(2)) == 2
    assert core.decode_error(core.encode_error(core.ERR_DEVICE, "strip: EIO")) == (core.ERR_DEVICE, "strip: EIO")


def test_another_protocol_version_is_named():
    payload = bytes((core.PROTOCOL_VERSION + 1,)) + b"anything else"
    with pytest.raises(core.VersionMismatch) as err:
        core.decode_welcome(payload)
    assert err.value.version == core.PROTOCOL_VERSION + 1
    with pytest.raises(core.VersionMismatch):
        core.decode_hello(payload)


@pytest.mark.parametrize(
    "decode, payload",
    [
        (core.decode_text, b""),
        (core.decode_text, b"\x02\x01a"),
        (core.decode_text, b"\x01\x05ab"),
        (core.decode_text, b"\x01\x01a!"),
        (core.decode_text, b"\x01\x02\xff\xfe"),
        (core.decode_match, bytes(17)),
        (core.decode_match, bytes(8) + b"\x03" + bytes(9)),
        (core.decode_lights, b"\x01\x00\x00\x00\x00\x00"),
        (core.decode_lights, b"\x01\x01\x00\x00\x00\x02"),
        (core.decode_lights, b"\x02\x01\x00\x00\x00\x00"),
        (core.decode_button, b"\x09"),
        (core.decode_beep, b"\x01"),
        (core.decode_welcome, bytes((core.PROTOCOL_VERSION, 0))),
    ],
)
def test_malformed_payloads_raise_protocol_error(decode, payload):
    with pytest.raises(core.ProtocolError):
        decode(payload)


# ---------------------------------------------------------------- channel


class Pair:
    """Two channels joined by two faulty wires, in simulated milliseconds."""

    def __init__(self, faults=None, seed=0, window=8, rto=100, tries=30):
        rng = random.Random(seed)
        self.faults = faults or Faults()
        self.a = core.Channel(window, rto, tries)
        self.b = core.Channel(window, rto, tries)
        self.ab = Wire(115200, self.faults, rng)
        self.ba = Wire(115200, self.faults, rng)
        self.decoders = (core.FrameDecoder(), core.FrameDecoder())
        self.now = 0
        self.got_a: list = []
        self.got_b: list = []
        self.lost_a: list = []
        self.lost_b: list = []

    def step(self):
        t = self.now / 1000
        for channel, inbound, decoder, got in (
            (self.a, self.ba, self.decoders[0], self.got_a),
            (self.b, self.ab, self.decoders[1], self.got_b),
        ):
            for frame in decoder.feed(inbound.receive(t)):
                message = channel.receive(*frame, self.now)
                if message is not None:
                    got.append(message)
        self.ab.send(self.a.poll(self.now), t)
        self.ba.send(self.b.poll(self.now), t)
        if self.a.failed or self.b.failed:  # what a new handshake does
            self.lost_a += self.a.reset()
            self.lost_b += self.b.reset()
            self.ab.clear()
            self.ba.clear()
        self.now += 1

    def run_until_idle(self, limit_ms=600_000):
        while self.a.pending() or self.b.pending():
            self.step()
            assert self.now < limit_ms, "the channel never drained"
        for _ in range(50):
            self.step()


def test_messages_arrive_in_order_with_fragments():
    pair = Pair()
    sent = [(core.TEXT, bytes([i]) * (i * 7 % 70)) for i in range(40)]
    for message in sent:
        pair.a.send(*message)
    pair.run_until_idle()
    assert pair.got_b == sent
    assert pair.lost_a == []


def test_window_bounds_fragments_in_flight():
    channel = core.Channel(window=4, rto=100, tries=5)
    for i in range(10):
        channel.send(core.BEEP, bytes(4))
    frames = core.FrameDecoder().feed(channel.poll(0))
    assert [seq for _, seq, _ in frames] == [0, 1, 2, 3]
    assert channel.poll(50) == b""
    channel.receive(core.ACK, 2, b"", 60)
    frames = core.FrameDecoder().feed(channel.poll(60))
    assert [seq for _, seq, _ in frames] == [4, 5]


def test_unacknowledged_fragments_are_resent_then_the_channel_fails():
    channel = core.Channel(window=8, rto=100, tries=3)
    channel.send(core.TEXT, b"x" * 20)  # two fragments
    assert len(core.FrameDecoder().feed(channel.poll(0))) == 2
    assert channel.poll(99) == b""
    assert len(core.FrameDecoder().feed(channel.poll(100))) == 2
    assert len(core.FrameDecoder().feed(channel.poll(200))) == 2
    assert not channel.failed
    assert channel.poll(300) == b"" and channel.failed
    assert channel.reset() == [(core.TEXT, b"x" * 20)]
    assert not channel.failed and channel.pending() == 0


def test_a_duplicate_ack_resends_at_once_but_only_once_per_loss():
    sender, receiver = core.Channel(rto=100), core.Channel(rto=100)
    for i in range(3):
        sender.send(core.BUTTON, bytes([i + 1]))
    first, second, third = core.FrameDecoder().feed(sender.poll(0))
    receiver.receive(*second, 1)  # the first was lost on the way
    receiver.receive(*third, 1)
    (ack,) = core.FrameDecoder().feed(receiver.poll(1))
    assert ack == (core.ACK, 0, b"")
    sender.receive(*ack, 2)
    assert sender.next_due(2) == 0
    assert [seq for _, seq, _ in core.FrameDecoder().feed(sender.poll(2))] == [0, 1, 2]
    sender.receive(*ack, 3)  # the same loss again: wait for the timeout now
    assert sender.poll(3) == b"" and sender.next_due(3) == 99
    delivered = [receiver.receive(*f, 4) for f in (first, second, third)]
    assert delivered == [(core.BUTTON, b"\x01"), (core.BUTTON, b"\x02"), (core.BUTTON, b"\x03")]
    sender.receive(*core.FrameDecoder().feed(receiver.poll(4))[0], 5)
    assert sender.pending() == 0


def test_the_timeout_follows_the_round_trip_and_backs_off():
    channel = core.Channel(rto=100, rto_min=20)
    assert channel.rto == 100  # no round trip measured yet
    channel.send(core.BUTTON, b"\x01")
    channel.poll(0)
    channel.receive(core.ACK, 1, b"", 5)  # a 5 ms round trip
    assert channel.rto == 20  # 5 + 4 * 2 = 13, but never below rto_min
    channel.send(core.BUTTON, b"\x02")
    channel.poll(10)
    assert channel.next_due(10) == 20
    channel.poll(30)  # expired: sent again, the timeout doubles
    assert channel.rto == 40 and channel.next_due(30) == 40
    channel.receive(core.ACK, 2, b"", 31)  # progress (no sample: it was sent twice)
    assert channel.rto == 20


def test_reset_keeps_unsent_messages_only_when_asked():
    channel = core.Channel(window=2, rto=100, tries=5)
    channel.send(core.BUTTON, b"\x01")
    channel.send(core.TEXT, b"y" * 20)  # two fragments: one goes in flight, one waits
    channel.send(core.BUTTON, b"\x02")
    channel.poll(0)
    assert channel.reset(keep_unsent=True) == [(core.BUTTON, b"\x01"), (core.TEXT, b"y" * 20)]
    assert channel.pending() == 1
    frames = core.FrameDecoder().feed(channel.poll(10))
    assert frames == [(core.BUTTON, 0, b"\x02")]
    channel.send(core.BUTTON, b"\x03")
    assert channel.reset() == [(core.BUTTON, b"\x02"), (core.BUTTON, b"\x03")]


def test_duplicates_and_stale_acks_are_ignored():
    sender, receiver = core.Channel(), core.Channel()
    sender.send(core.BEEP, b"\x01\x02\x03\x04")
    (frame,) = core.FrameDecoder().feed(sender.poll(0))
    assert receiver.receive(*frame, 0) == (core.BEEP, b"\x01\x02\x03\x04")
    assert receiver.receive(*frame, 1) is None  # the same fragment again
    ack = core.FrameDecoder().feed(receiver.poll(1))
    assert ack == [(core.ACK, 1, b"")]
    sender.receive(core.ACK, 200, b"", 2)  # nonsense ACK: nothing acknowledged
    assert sender.pending() == 1
    sender.receive(*ack[0], 3)
    assert sender.pending() == 0


def test_sequence_numbers_wrap_around():
    pair = Pair()
    sent = [(core.BUTTON, bytes([i % 3 + 1])) for i in range(700)]
    for message in sent:
        pair.a.send(*message)
    pair.run_until_idle()
    assert pair.got_b == sent


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    rate=st.sampled_from([0.01, 0.05]),
    sizes=st.lists(st.integers(0, 120), min_size=5, max_size=40),
)
def test_under_faults_each_message_arrives_once_in_order_or_is_reported_lost(seed, rate, sizes):
    """5% of bytes dropped or corrupted (and some duplicated), both directions at once."""
    pair = Pair(Faults(drop=rate / 2, corrupt=rate / 2, duplicate=0.01), seed=seed)
    sent_a = [(core.TEXT, i.to_bytes(2, "big") + bytes([i % 251 + 1]) * n) for i, n in enumerate(sizes)]
    sent_b = [(core.ERROR, i.to_bytes(2, "big")) for i in range(len(sizes))]
    for ma, mb in zip(sent_a, sent_b):
        pair.a.send(*ma)
        pair.b.send(*mb)
        for _ in range(20):
            pair.step()
    pair.run_until_idle()
    for sent, got, lost in ((sent_a, pair.got_b, pair.lost_a), (sent_b, pair.got_a, pair.lost_b)):
        order = [sent.index(m) for m in got]  # raises if anything arrived that was not sent
        assert order == sorted(set(order)), "duplicated or out of order"
        missing = [m for m in sent if m not in got]
        assert all(m in lost for m in missing), "a message vanished without being reported lost"


# ---------------------------------------------------------------- the MicroPython subset

FIRMWARE_FILES = {
    REPO / "firmware_bridge" / "protocol_core.py": {"binascii"},
    REPO / "hardware" / "firmware" / "unit.py": {"protocol_core", "firmware_bridge"},
    REPO
    / "hardware"
    / "firmware"
    / "main.py": {"select", "sys", "time", "machine", "micropython", "neopixel", "ssd1306", "unit", "hardware.firmware"},
}
# str/bytes/int methods MicroPython does not have.
MISSING_IN_MICROPYTHON = {
    "ljust", "rjust", "center", "zfill", "isprintable", "casefold", "expandtabs", "format_map",
    "removeprefix", "removesuffix", "hex", "to_bytes", "from_bytes", "bit_length",
}  # fmt: skip


@pytest.mark.parametrize("path", list(FIRMWARE_FILES), ids=lambda p: p.name)
def test_firmware_files_keep_to_what_micropython_runs(path):
    tree = ast.parse(path.read_text())
    allowed_imports = FIRMWARE_FILES[path]
    problems = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.JoinedStr):
            problems.append(f"{where}: f-string")
        elif isinstance(node, ast.AnnAssign):
            problems.append(f"{where}: variable annotation")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            if node.returns or any(a.annotation for a in args):
                problems.append(f"{where}: annotated function {node.name}")
        elif isinstance(node, (ast.Match, ast.AsyncFunctionDef, ast.Await)):
            problems.append(f"{where}: {type(node).__name__}")
        elif isinstance(node, ast.Import):
            problems += [f"{where}: import {a.name}" for a in node.names if a.name not in allowed_imports]
        elif isinstance(node, ast.ImportFrom) and node.module not in allowed_imports:
            problems.append(f"{where}: from {node.module} import")
        elif isinstance(node, ast.Attribute) and node.attr in MISSING_IN_MICROPYTHON:
            problems.append(f"{where}: .{node.attr}() is not in MicroPython")
        elif isinstance(node, ast.Name) and node.id in {"dataclass", "Enum", "TypedDict"}:
            problems.append(f"{where}: {node.id}")
    assert problems == []
