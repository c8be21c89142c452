"""The display protocol's core, shared word for word by the host and the unit's firmware.

This file runs under CPython (the referee, the simulator, the tests) and under
MicroPython on the display unit, where the firmware build copies it next to
``main.py`` (see docs/protocol.md). It therefore keeps to the language both
share: no annotations, dataclasses, enums, f-strings or ``typing``; no import
but ``binascii`` (optional); integers that fit MicroPython's small ints on the
hot paths. Time is never read here: callers pass ``now`` as integer
milliseconds from a clock that does not wrap.

What lives here is what both ends must agree on:

* framing: ``0x00, COBS(type, seq, payload, CRC-32), 0x00`` (``encode_frame``,
  ``FrameDecoder``);
* the message types and their payload layouts (``encode_*``/``decode_*``);
* ``Channel``: sequence numbers, cumulative acknowledgement, go-back-N
  retransmission with a bounded number of tries, fragmentation of long messages.

The handshake and heartbeat sit on top of this, in ``firmware_bridge.host`` for
the host and ``hardware/firmware/unit.py`` for the unit.
"""

PROTOCOL_VERSION = 1

# ---------------------------------------------------------------- frame types
# Control frames: not sequenced, never fragmented, never acknowledged.
ACK = 0x01  # seq field = the next sequence number the sender of the ACK expects
HELLO = 0x02  # host -> unit: version u8, session u16
WELCOME = 0x03  # unit -> host: version, session u16, fw major, fw minor, rows, cols, features, buttons
PING = 0x04  # host -> unit: heartbeat, empty
PONG = 0x05  # unit -> host: the unit's session u16 (0 = none)
BOOT = 0x06  # unit -> host: the unit has no session (just started); reason u8

# Data messages: sequenced, acknowledged, retransmitted, fragmented.
TEXT = 0x10  # host -> unit: lines
MATCH = 0x11  # host -> unit: score, match length, Crawford, cube, clocks
LIGHTS = 0x12  # host -> unit: the points to light (replaces all lights)
CLEAR = 0x13  # host -> unit: blank text, match panel and lights
BEEP = 0x14  # host -> unit: frequency u16 (Hz), duration u16 (ms)
BUTTON = 0x20  # unit -> host: button id u8
ERROR = 0x21  # unit -> host: code u8, UTF-8 text

MORE = 0x80  # set in the type byte of every fragment but a message's last
TYPE_MASK = 0x7F

FIRST_DATA_TYPE = 0x10  # types from here on (unknown ones too) go through the Channel


def is_data(ftype):
    """Whether a frame belongs to the Channel (a data fragment, any type >= 0x10)."""
    return (ftype & TYPE_MASK) >= FIRST_DATA_TYPE

MAX_FRAGMENT = 16  # payload bytes in one frame
MAX_MESSAGE = 512  # payload bytes of one (reassembled) message
_HEADER = 2  # type, seq
_CRC = 4
MAX_FRAME = _HEADER + MAX_FRAGMENT + _CRC  # decoded frame, without COBS or delimiters
MAX_ENCODED = MAX_FRAME + MAX_FRAME // 254 + 1

SEQ_MODULO = 256

# Buttons, by protocol id (index in this tuple). Id 0 is never sent.
BUTTON_NAMES = ("", "accept", "undo", "menu")

# Reasons in BOOT.
BOOT_POWER_ON = 0
BOOT_WATCHDOG = 1
BOOT_SOFT = 2
BOOT_SESSION_LOST = 3  # the unit gave up on an unresponsive host and dropped its session
BOOT_REASONS = ("power-on", "watchdog", "soft reset", "session lost")

# Codes in ERROR.
ERR_MALFORMED = 1  # a message whose payload does not parse
ERR_UNKNOWN_TYPE = 2  # a data message type the unit does not know
ERR_LOST = 3  # messages from the unit that were never acknowledged
ERR_DEVICE = 4  # a display, strip or buzzer fault on the unit
ERROR_NAMES = ("", "malformed message", "unknown message type", "messages lost", "device fault")

# WELCOME feature bits.
FEATURE_LIGHTS = 0x01
FEATURE_BUZZER = 0x02

# MATCH flag bits.
MATCH_SHOWN = 0x01
MATCH_CRAWFORD = 0x02
MATCH_POST_CRAWFORD = 0x04
MATCH_CLOCK = 0x08
# Cube owner and running clock: 0 none/centred, 1 White, 2 Black.
NOBODY = 0
WHITE_SIDE = 1
BLACK_SIDE = 2

# Light locations: 1..24 the points in White's numbering, then these.
LOC_BAR = 25
LOC_WHITE_TRAY = 26
LOC_BLACK_TRAY = 27
LOCATIONS = 27
LIGHT_STEADY = 0
LIGHT_BLINK = 1


class ProtocolError(ValueError):
    """A frame or payload that does not follow the protocol."""


class VersionMismatch(ProtocolError):
    """The other end speaks another protocol version (``version``)."""

    def __init__(self, version):
        ProtocolError.__init__(self, "the other end speaks protocol version %d, this end %d" % (version, PROTOCOL_VERSION))
        self.version = version


# ---------------------------------------------------------------- CRC-32


def _crc32_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            if c & 1:
                c = 0xEDB88320 ^ (c >> 1)
            else:
                c >>= 1
        table.append(c)
    return table


_CRC_TABLE = _crc32_table()


def crc32_python(data):
    """CRC-32 (IEEE 802.3, as zlib) computed byte by byte; for ports without binascii.crc32."""
    crc = 0xFFFFFFFF
    table = _CRC_TABLE
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


try:
    from binascii import crc32
except ImportError:  # a MicroPython port built without it
    crc32 = crc32_python


# ---------------------------------------------------------------- COBS


def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result contains no zero byte."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data):
    """Invert ``cobs_encode``; raise ProtocolError on a zero byte or a block overrunning the end."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise ProtocolError("COBS block runs past the end of the frame")
        block = data[i + 1 : end]
        if 0 in block:
            raise ProtocolError("zero byte inside a COBS block")
        out.extend(block)
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


# ---------------------------------------------------------------- frames


def encode_frame(ftype, seq, payload=b""):
    """The bytes on the wire for one frame: a delimiter, the COBS body, a delimiter.

    The leading delimiter ends any garbage the receiver has buffered, so a
    valid frame is never lost behind noise.
    """
    if len(payload) > MAX_FRAGMENT:
        raise ProtocolError("frame payload of %d bytes exceeds %d" % (len(payload), MAX_FRAGMENT))
    body = bytearray()
    body.append(ftype & 0xFF)
    body.append(seq & 0xFF)
    body.extend(payload)
    crc = crc32(body)
    body.append(crc & 0xFF)
    body.append((crc >> 8) & 0xFF)
    body.append((crc >> 16) & 0xFF)
    body.append((crc >> 24) & 0xFF)
    return b"\x00" + cobs_encode(body) + b"\x00"


def parse_frame(encoded):
    """``(type, seq, payload)`` of one COBS body (without delimiters); ProtocolError if damaged."""
    if len(encoded) > MAX_ENCODED:
        raise ProtocolError("frame too long")
    body = cobs_decode(encoded)
    if len(body) < _HEADER + _CRC:
        raise ProtocolError("frame too short")
    n = len(body) - _CRC
    got = body[n] | (body[n + 1] << 8) | (body[n + 2] << 16) | (body[n + 3] << 24)
    if crc32(body[:n]) != got:
        raise ProtocolError("CRC mismatch")
    return body[0], body[1], body[_HEADER:n]


class FrameDecoder:
    """Splits a byte stream into valid frames, dropping damaged ones.

    ``feed(data)`` returns the ``(type, seq, payload)`` tuples completed by
    ``data``. Bytes between delimiters that do not form a valid frame are
    counted in ``dropped`` and skipped; the buffer never grows past one
    maximal frame, so no input can make it allocate without bound.
    """

    def __init__(self):
        self._buf = bytearray()
        self._overflow = False
        self.dropped = 0

    def feed(self, data):
        frames = []
        data = bytes(data)
        start = 0
        n = len(data)
        while start < n:
            end = data.find(b"\x00", start)
            if end < 0:
                self._take(data[start:])
                break
            self._take(data[start:end])
            self._finish(frames)
            start = end + 1
        return frames

    def _take(self, chunk):
        if self._overflow:
            return
        if len(self._buf) + len(chunk) > MAX_ENCODED:
            self._overflow = True
            self._buf = bytearray()
        else:
            self._buf.extend(chunk)

    def _finish(self, frames):
        if self._overflow:
            self._overflow = False
            self.dropped += 1
            return
        if not self._buf:
            return
        encoded = bytes(self._buf)
        self._buf = bytearray()
        try:
            frames.append(parse_frame(encoded))
        except ProtocolError:
            self.dropped += 1


# ---------------------------------------------------------------- payloads


def _u16(value):
    if value < 0 or value > 0xFFFF:
        raise ProtocolError("%d does not fit in 16 bits" % value)
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def _u32(value):
    if value < 0 or value > 0xFFFFFFFF:
        raise ProtocolError("%d does not fit in 32 bits" % value)
    return bytes(((value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF))


def _get_u16(data, i):
    return (data[i] << 8) | data[i + 1]


def _get_u32(data, i):
    return (data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3]


def _need(data, size, what):
    if len(data) != size:
        raise ProtocolError("%s payload has %d bytes, expected %d" % (what, len(data), size))


def _text(data, what):
    try:
        return bytes(data).decode("utf-8")
    except ValueError:
        raise ProtocolError("%s is not UTF-8" % what)


def encode_hello(session):
    return bytes((PROTOCOL_VERSION,)) + _u16(session)


def decode_hello(data):
    """The session the host proposes; VersionMismatch for another protocol version."""
    _check_version(data, "HELLO")
    _need(data, 3, "HELLO")
    return _get_u16(data, 1)


def encode_welcome(session, fw_version, rows, cols, features, buttons):
    """The unit's answer to HELLO: its protocol version, the session it adopted and what it has.

    ``fw_version`` is ``(major, minor)``; ``rows``/``cols`` the text area;
    ``features`` FEATURE_* bits; ``buttons`` a bit per button id (bit 1 = accept ...).
    """
    return (
        bytes((PROTOCOL_VERSION,))
        + _u16(session)
        + bytes((fw_version[0], fw_version[1], rows, cols, features, buttons))
    )


def _check_version(data, what):
    if len(data) < 1:
        raise ProtocolError("%s payload is empty" % what)
    if data[0] != PROTOCOL_VERSION:
        raise VersionMismatch(data[0])


def decode_welcome(data):
    """``(session, (fw major, fw minor), rows, cols, features, buttons)``.

    The version is the first byte of HELLO and WELCOME in every version of the
    protocol; another version raises VersionMismatch whatever the rest holds.
    """
    _check_version(data, "WELCOME")
    _need(data, 9, "WELCOME")
    return _get_u16(data, 1), (data[3], data[4]), data[5], data[6], data[7], data[8]


def encode_session(session):
    """PONG's payload."""
    return _u16(session)


def decode_session(data):
    _need(data, 2, "PONG")
    return _get_u16(data, 0)


def encode_text(lines):
    """TEXT: a count, then each line as a length byte and UTF-8 bytes (at most 255)."""
    if len(lines) > 255:
        raise ProtocolError("%d text lines, at most 255" % len(lines))
    out = bytearray((len(lines),))
    for line in lines:
        raw = line.encode("utf-8")
        if len(raw) > 255:
            raise ProtocolError("text line of %d bytes, at most 255" % len(raw))
        out.append(len(raw))
        out.extend(raw)
    return bytes(out)


def decode_text(data):
    if len(data) < 1:
        raise ProtocolError("TEXT payload is empty")
    count = data[0]
    lines = []
    i = 1
    for _ in range(count):
        if i >= len(data):
            raise ProtocolError("TEXT payload ends before line %d" % (len(lines) + 1))
        size = data[i]
        i += 1
        if i + size > len(data):
            raise ProtocolError("TEXT line %d runs past the payload" % (len(lines) + 1))
        lines.append(_text(data[i : i + size], "TEXT line"))
        i += size
    if i != len(data):
        raise ProtocolError("TEXT payload has %d bytes after its lines" % (len(data) - i))
    return lines


def encode_match(flags, white_score, black_score, length, cube_log2, cube_owner, white_ms, black_ms, running):
    """MATCH: flags, scores u16 x2, match length u16 (0 = unlimited), cube log2 u8,
    cube owner u8, clocks in ms u32 x2, running clock u8."""
    return (
        bytes((flags,))
        + _u16(white_score)
        + _u16(black_score)
        + _u16(length)
        + bytes((cube_log2, cube_owner))
        + _u32(white_ms)
        + _u32(black_ms)
        + bytes((running,))
    )


def decode_match(data):
    """``(flags, white_score, black_score, length, cube_log2, cube_owner, white_ms, black_ms, running)``."""
    _need(data, 18, "MATCH")
    owner = data[8]
    running = data[17]
    if owner > BLACK_SIDE or running > BLACK_SIDE:
        raise ProtocolError("MATCH side code out of range")
    if data[7] > 15:
        raise ProtocolError("MATCH cube 2**%d out of range" % data[7])
    return (
        data[0],
        _get_u16(data, 1),
        _get_u16(data, 3),
        _get_u16(data, 5),
        data[7],
        owner,
        _get_u32(data, 9),
        _get_u32(data, 13),
        running,
    )


def encode_lights(lights):
    """LIGHTS: a count, then per light location, red, green, blue, mode (5 bytes).

    ``lights`` is a sequence of ``(location, (r, g, b), mode)``.
    """
    out = bytearray((len(lights),))
    for location, rgb, mode in lights:
        if location < 1 or location > LOCATIONS:
            raise ProtocolError("light location %d outside 1..%d" % (location, LOCATIONS))
        out.append(location)
        out.extend(bytes(rgb))
        out.append(mode)
    return bytes(out)


def decode_lights(data):
    if len(data) < 1 or len(data) != 1 + 5 * data[0]:
        raise ProtocolError("LIGHTS payload of %d bytes does not match its count" % len(data))
    lights = []
    for k in range(data[0]):
        i = 1 + 5 * k
        location = data[i]
        mode = data[i + 4]
        if location < 1 or location > LOCATIONS or mode > LIGHT_BLINK:
            raise ProtocolError("LIGHTS entry %d out of range" % (k + 1))
        lights.append((location, (data[i + 1], data[i + 2], data[i + 3]), mode))
    return lights


def encode_beep(frequency, duration_ms):
    return _u16(frequency) + _u16(duration_ms)


def decode_beep(data):
    """``(frequency Hz, duration ms)``."""
    _need(data, 4, "BEEP")
    return _get_u16(data, 0), _get_u16(data, 2)


def encode_button(button):
    return bytes((button,))


def decode_button(data):
    _need(data, 1, "BUTTON")
    if data[0] < 1 or data[0] >= len(BUTTON_NAMES):
        raise ProtocolError("unknown button id %d" % data[0])
    return data[0]


def encode_error(code, text):
    return bytes((code,)) + text.encode("utf-8")


def decode_error(data):
    """``(code, text)``."""
    if len(data) < 1:
        raise ProtocolError("ERROR payload is empty")
    return data[0], _text(data[1:], "ERROR text")


# ---------------------------------------------------------------- reliable channel


class Channel:
    """Delivers data messages exactly once and in order over a lossy byte stream.

    Go-back-N: up to ``window`` fragments are in flight; the receiver accepts
    only the next fragment in sequence and answers every data frame with a
    cumulative ACK carrying the next sequence number it expects. Every
    fragment in flight is sent again when the oldest is unacknowledged for the
    retransmission timeout, or when an ACK asks for it again (a later fragment
    arrived without it; once per progress). When the oldest has been sent
    ``tries`` times with no ACK making progress meanwhile, the channel is
    ``failed``: the owner starts a new session and calls ``reset()``, which
    returns the messages not acknowledged (reported lost: each may or may not
    have arrived).

    The timeout adapts to the round trip (Jacobson/Karels: smoothed round
    trip plus four deviations, samples only from fragments sent once), within
    ``rto_min``..``rto`` ms; it starts at ``rto``, doubles (up to ``rto``)
    after each expiry, and returns to the estimate when an ACK makes progress.

    Messages longer than MAX_FRAGMENT are split; the receiver delivers a
    message when its last fragment arrives, so a message is delivered whole or
    not at all.
    """

    def __init__(self, window=8, rto=100, tries=30, rto_min=20):
        self.window = window
        self.rto_max = rto
        self.rto_min = rto_min
        self.rto = rto  # the current retransmission timeout, ms
        self.tries = tries
        self.failed = False
        self._srtt = -1  # smoothed round trip, ms (-1: no sample yet)
        self._rttvar = 0
        self._next_seq = 0
        self._unsent = []  # [ftype, chunk, message] not yet transmitted
        self._inflight = []  # [ftype, chunk, message, seq, sent_at, resent]
        self._timer_at = 0  # when the retransmission timer (for the oldest) started
        self._sends = 0  # sends of the oldest fragment in flight since the last progress
        self._resend = False  # a duplicate ACK asked for the fragments in flight again
        self._fast_used = False  # ... which it may do once per progress
        self._expected = 0
        self._parts = bytearray()
        self._parts_type = 0
        self._ack_due = False
        self._messages = 0  # messages queued or in flight

    def reset(self, keep_unsent=False):
        """Start a new session: sequence numbers from 0.

        Returns the ``(type, payload)`` of every message that was sent (in
        part or whole) and not acknowledged: it may or may not have arrived.
        Messages not sent at all are dropped and returned too, unless
        ``keep_unsent``: then they go out first in the new session.
        """
        lost = []
        for entry in self._inflight:
            if not lost or lost[-1] is not entry[2]:
                lost.append(entry[2])
        kept = []
        for entry in self._unsent:
            if lost and lost[-1] is entry[2]:
                continue  # the rest of a message already partly sent
            if keep_unsent:
                kept.append(entry)
            elif not lost or lost[-1] is not entry[2]:
                lost.append(entry[2])
        self.failed = False
        self._next_seq = 0
        self._unsent = kept
        self._inflight = []
        self._sends = 0
        self._resend = False
        self._fast_used = False
        self._expected = 0
        self._parts = bytearray()
        self._ack_due = False
        self._messages = 0
        for entry in kept:
            if not entry[0] & MORE:
                self._messages += 1
        return lost

    def send(self, mtype, payload):
        """Queue one data message; it is sent by the next ``poll``."""
        if len(payload) > MAX_MESSAGE:
            raise ProtocolError("message of %d bytes exceeds %d" % (len(payload), MAX_MESSAGE))
        message = (mtype, payload)
        start = 0
        while True:
            chunk = payload[start : start + MAX_FRAGMENT]
            start += MAX_FRAGMENT
            last = start >= len(payload)
            self._unsent.append([mtype if last else mtype | MORE, chunk, message])
            if last:
                break
        self._messages += 1

    def pending(self):
        """Messages queued or in flight (not yet acknowledged)."""
        return self._messages

    def unsent(self):
        """Fragments queued and not yet transmitted once."""
        return len(self._unsent)

    def receive(self, ftype, seq, payload, now):
        """Handle an ACK or data frame. Returns a delivered ``(type, payload)`` or None."""
        if ftype == ACK:
            self._acknowledge(seq, now)
            return None
        self._ack_due = True
        if seq != self._expected:
            return None  # a duplicate or a frame after a lost one: the ACK says what we want
        self._expected = (self._expected + 1) % SEQ_MODULO
        mtype = ftype & TYPE_MASK
        if self._parts and mtype != self._parts_type:
            self._parts = bytearray()  # a sender that started a new message mid-way
        if len(self._parts) + len(payload) > MAX_MESSAGE:
            self._parts = bytearray()
            return None
        self._parts_type = mtype
        self._parts.extend(payload)
        if ftype & MORE:
            return None
        message = (mtype, bytes(self._parts))
        self._parts = bytearray()
        return message

    def _acknowledge(self, next_expected, now):
        if not self._inflight:
            return
        count = (next_expected - self._inflight[0][3]) % SEQ_MODULO
        if count == 0:
            # The receiver still wants our oldest fragment while later ones reach it:
            # it was lost. Resend now rather than at the timeout, once per loss.
            if not self._fast_used:
                self._fast_used = True
                self._resend = True
            return
        if count > len(self._inflight):
            return  # a stale ACK
        newest = self._inflight[count - 1]
        if not newest[5]:
            self._sample(now - newest[4])
        elif self._srtt >= 0:
            self.rto = self._estimate()  # progress ends the back-off
        for entry in self._inflight[:count]:
            if not entry[0] & MORE:
                self._messages -= 1
        del self._inflight[:count]
        self._fast_used = False
        self._resend = False
        # Progress: the new oldest fragment gets a full timeout and all its tries.
        self._timer_at = now
        self._sends = 1

    def _sample(self, rtt):
        if self._srtt < 0:
            self._srtt = rtt
            self._rttvar = rtt // 2
        else:
            self._rttvar = (3 * self._rttvar + abs(self._srtt - rtt)) // 4
            self._srtt = (7 * self._srtt + rtt) // 8
        self.rto = self._estimate()

    def _estimate(self):
        return min(self.rto_max, max(self.rto_min, self._srtt + 4 * self._rttvar))

    def poll(self, now):
        """The frames to write now: a due ACK, retransmissions, then new fragments."""
        out = bytearray()
        if self._ack_due:
            self._ack_due = False
            out.extend(encode_frame(ACK, self._expected))
        if self.failed:
            return bytes(out)
        if self._inflight and (self._resend or now - self._timer_at >= self.rto):
            if self._sends >= self.tries:
                self.failed = True
                return bytes(out)
            if not self._resend:
                self.rto = min(self.rto_max, 2 * self.rto)
            self._resend = False
            self._sends += 1
            self._timer_at = now
            for entry in self._inflight:
                entry[5] = True
                out.extend(encode_frame(entry[0], entry[3], entry[1]))
        while self._unsent and len(self._inflight) < self.window:
            entry = self._unsent.pop(0)
            seq = self._next_seq
            self._next_seq = (seq + 1) % SEQ_MODULO
            entry.extend((seq, now, False))
            if not self._inflight:
                self._timer_at = now
                self._sends = 1
            self._inflight.append(entry)
            out.extend(encode_frame(entry[0], seq, entry[1]))
        return bytes(out)

    def next_due(self, now):
        """Milliseconds until ``poll`` has something to do (0 = now); None when idle."""
        if self._ack_due or self._resend or (self._unsent and len(self._inflight) < self.window):
            return 0
        if self._inflight and not self.failed:
            return max(0, self.rto - (now - self._timer_at))
        return None
