"""The host's half of the display protocol over one open port, without any I/O.

``HostSession`` is given the bytes read from the port and the time, and
returns the bytes to write; ``DisplayLink`` runs it on a background thread
against a real port, and the tests run it against the unit's firmware logic
in simulated time. It performs the handshake, keeps the unit's screen equal
to a ``DisplayState``, sends heartbeats, notices a unit that restarted or fell
silent and starts a new session, and turns what the unit says into events.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from firmware_bridge import protocol_core as core
from firmware_bridge.events import ButtonPress, LinkChanged, LinkState, MessageLost, UnitError, UnitReset
from firmware_bridge.state import PARTS, DisplayState, UnitInfo

log = logging.getLogger(__name__)

KINDS = {core.TEXT: "text", core.MATCH: "match", core.LIGHTS: "lights", core.CLEAR: "clear", core.BEEP: "beep"}


@dataclass(frozen=True)
class Timing:
    """The link's timers, in seconds (docs/protocol.md explains each)."""

    rto: float = 0.1  # first and longest retransmission timeout (data fragments) and HELLO's repeat
    rto_min: float = 0.02  # the adaptive retransmission timeout never goes below this
    tries: int = 30  # sends of the oldest fragment without progress before a new session
    window: int = 8  # fragments in flight
    heartbeat: float = 0.5  # PING after this long without hearing the unit
    link_timeout: float = 2.0  # new handshake after this long without hearing the unit
    handshake_timeout: float = 2.0  # close the port after this long without a WELCOME
    reconnect_min: float = 0.05  # first wait before reopening a port
    reconnect_max: float = 0.25  # the wait doubles up to this


def next_session(session: int) -> int:
    """The session number after ``session``: 1..65535, never 0 (0 means none)."""
    return session % 0xFFFF + 1


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


class HostSession:
    """One port's conversation with the unit: handshake, screen sync, heartbeat, events."""

    def __init__(self, display: DisplayState, now: float, session: int, port: str, timing: Timing = Timing()):
        self.display = display
        self.port = port
        self.timing = timing
        self.state = LinkState.HANDSHAKING
        self.info: UnitInfo | None = None
        self.failed: str | None = None  # why the port should be closed
        self.events: list = []
        self._decoder = core.FrameDecoder()
        self._channel = core.Channel(timing.window, _ms(timing.rto), timing.tries, _ms(timing.rto_min))
        self._session = session
        self._heard_at = now
        self._ping_at = now
        self._hello_at: float | None = None
        self._handshake_at = now
        self._synced = dict.fromkeys(PARTS, -1)
        self.events.append(LinkChanged(LinkState.HANDSHAKING, f"handshaking with {port}", now))

    # ------------------------------------------------------------ input

    def receive(self, data: bytes, now: float) -> None:
        """Bytes read from the port."""
        for ftype, seq, payload in self._decoder.feed(data):
            self._heard_at = now
            if ftype == core.WELCOME:
                self._welcome(payload, now)
            elif ftype == core.BOOT:
                self._boot(payload, now)
            elif ftype == core.PONG:
                self._pong(payload, now)
            elif (ftype == core.ACK or core.is_data(ftype)) and self.state is LinkState.UP:
                # Before WELCOME these are left from the previous session.
                message = self._channel.receive(ftype, seq, payload, _ms(now))
                if message is not None:
                    self._unit_message(message[0], message[1], now)

    def _welcome(self, payload: bytes, now: float) -> None:
        if self.state is not LinkState.HANDSHAKING:
            return  # an answer to a repeated HELLO
        try:
            session, firmware, rows, cols, features, buttons = core.decode_welcome(payload)
        except core.VersionMismatch as err:
            self.failed = (
                f"the display unit on {self.port} speaks protocol version {err.version}, "
                f"bgref speaks {core.PROTOCOL_VERSION}: update its firmware"
            )
            return
        except core.ProtocolError as err:
            log.warning("display unit on %s: bad WELCOME: %s", self.port, err)
            return
        if session != self._session:
            return  # from an earlier handshake
        self.info = UnitInfo(
            firmware=firmware,
            text_rows=rows,
            text_cols=cols,
            lights=bool(features & core.FEATURE_LIGHTS),
            buzzer=bool(features & core.FEATURE_BUZZER),
            buttons=tuple(name for i, name in enumerate(core.BUTTON_NAMES) if name and buttons & (1 << i)),
        )
        self.state = LinkState.UP
        self._synced = dict.fromkeys(PARTS, -1)
        self.events.append(
            LinkChanged(LinkState.UP, f"display unit (firmware {firmware[0]}.{firmware[1]}) on {self.port}", now)
        )

    def _boot(self, payload: bytes, now: float) -> None:
        code = payload[0] if payload else core.BOOT_POWER_ON
        reason = core.BOOT_REASONS[code] if code < len(core.BOOT_REASONS) else f"reason {code}"
        if self.state is LinkState.UP:
            self.events.append(UnitReset(reason, now))
            self._handshake(now, f"display unit on {self.port} restarted ({reason})")
        else:
            self._hello_at = None  # it is listening now: say HELLO at once

    def _pong(self, payload: bytes, now: float) -> None:
        try:
            session = core.decode_session(payload)
        except core.ProtocolError:
            return
        if self.state is LinkState.UP and session != self._session:
            self.events.append(UnitReset("session lost", now))
            self._handshake(now, f"display unit on {self.port} lost its session")

    def _unit_message(self, mtype: int, payload: bytes, now: float) -> None:
        try:
            if mtype == core.BUTTON:
                self.events.append(ButtonPress(core.BUTTON_NAMES[core.decode_button(payload)], "display", now))
            elif mtype == core.ERROR:
                code, text = core.decode_error(payload)
                name = core.ERROR_NAMES[code] if code < len(core.ERROR_NAMES) else f"error {code}"
                self.events.append(UnitError(code, f"{name}: {text}", now))
            else:
                log.warning("display unit on %s sent unknown message type 0x%02x", self.port, mtype)
        except core.ProtocolError as err:
            log.warning("display unit on %s sent a malformed message: %s", self.port, err)

    # ------------------------------------------------------------ output

    def transmit(self, now: float) -> bytes:
        """The bytes to write at ``now``."""
        if self.failed:
            return b""
        if self.state is LinkState.HANDSHAKING:
            return self._transmit_handshake(now)
        if now - self._heard_at >= self.timing.link_timeout:
            self._handshake(now, f"display unit on {self.port} silent for {self.timing.link_timeout:g} s")
            return self._transmit_handshake(now)
        if self._channel.failed:
            self._handshake(now, f"display unit on {self.port} did not acknowledge after {self.timing.tries} tries")
            return self._transmit_handshake(now)
        self._sync(now)
        out = self._channel.poll(_ms(now))
        if now - max(self._heard_at, self._ping_at) >= self.timing.heartbeat:
            self._ping_at = now
            out += core.encode_frame(core.PING, 0)
        return out

    def _transmit_handshake(self, now: float) -> bytes:
        if now - self._handshake_at >= self.timing.handshake_timeout:
            self.failed = f"no display unit answered on {self.port}"
            return b""
        if self._hello_at is not None and now - self._hello_at < self.timing.rto:
            return b""
        self._hello_at = now
        return core.encode_frame(core.HELLO, 0, core.encode_hello(self._session))

    def _handshake(self, now: float, reason: str) -> None:
        """Start a new session: what was not acknowledged is lost, the screen is sent again."""
        self._lost(now)
        self._session = next_session(self._session)
        self.state = LinkState.HANDSHAKING
        self.info = None
        self._hello_at = None
        self._handshake_at = now
        self._heard_at = now
        self.events.append(LinkChanged(LinkState.HANDSHAKING, reason, now))

    def _lost(self, now: float) -> None:
        for mtype, _ in self._channel.reset():
            self.events.append(MessageLost(KINDS.get(mtype, f"type 0x{mtype:02x}"), now))

    def close(self, now: float) -> None:
        """The port is closing: report what was not acknowledged."""
        self._lost(now)

    def _sync(self, now: float) -> None:
        """Queue the parts of the screen that changed, once the window has room for them."""
        if self._channel.unsent():
            return
        versions = self.display.versions
        stale = [part for part in PARTS if self._synced[part] != versions[part]]
        if not stale:
            return
        if self.display.blank():
            self._channel.send(core.CLEAR, b"")
            self._synced = dict(versions)
            return
        for part in stale:
            self._synced[part] = versions[part]
            if part == "lights" and not self.info.lights:
                continue
            self._channel.send(*self.display.encode(part, now, self.info))

    def beep(self, frequency: int, duration_ms: int) -> bool:
        """Queue a beep; False when the session is not up or the unit has no buzzer."""
        if self.state is not LinkState.UP or not self.info.buzzer:
            return False
        self._channel.send(core.BEEP, core.encode_beep(frequency, duration_ms))
        return True

    # ------------------------------------------------------------ queries

    def synced(self) -> bool:
        """Up, and the unit has acknowledged the current screen and every beep."""
        return (
            self.state is LinkState.UP
            and self._synced == self.display.versions
            and self._channel.pending() == 0
        )

    def next_timeout(self, now: float) -> float:
        """Seconds until ``transmit`` has something to do (at most one heartbeat)."""
        timing = self.timing
        if self.failed:
            return timing.heartbeat
        if self.state is LinkState.HANDSHAKING:
            due = 0.0 if self._hello_at is None else self._hello_at + timing.rto - now
            return max(0.0, min(due, self._handshake_at + timing.handshake_timeout - now))
        waits = [
            max(self._heard_at, self._ping_at) + timing.heartbeat - now,
            self._heard_at + timing.link_timeout - now,
        ]
        if self._synced != self.display.versions and not self._channel.unsent():
            waits.append(0.0)
        channel = self._channel.next_due(_ms(now))
        if channel is not None:
            waits.append(channel / 1000)
        return max(0.0, min(waits))
