"""``DisplayLink``: the referee's connection to the display unit.

The referee sets what the unit should show and never waits for it::

    link = DisplayLink(["/dev/ttyACM*"], events=referee_queue)
    link.set_match_state(MatchState(score=(3, 2), match_length=7, cube_value=2, cube_owner=0))
    link.show_text(["White to play", "6-1"])
    link.light_points({8: ("red", True), 7: ("red", True)})
    link.beep()
    ...
    link.close()

A background thread owns the port. It opens the first candidate that works
(``serial.serial_for_url``: a device path, a glob of paths, ``socket://``,
anything pyserial opens), performs the handshake, keeps the unit's screen
equal to the last values set, and reopens the port with back-off when it
disappears, also under another name matching a candidate. What the unit
says (button presses, restarts, errors) and how the link fares go on
``events``.
"""

from __future__ import annotations

import collections
import glob
import logging
import queue
import random
import threading
import time
from collections.abc import Mapping, Sequence

import serial

from firmware_bridge.events import LinkChanged, LinkState
from firmware_bridge.host import HostSession, Timing, next_session
from firmware_bridge.state import DisplayState, MatchState, UnitInfo, point_lights, text_lines

log = logging.getLogger(__name__)

READ_TIMEOUT = 0.05  # the reader thread checks for shutdown this often
WRITE_TIMEOUT = 1.0  # a port that takes longer to accept bytes is treated as gone


class DisplayLink:
    """Keeps the display unit showing the intended screen, over whatever port it is on.

    ``ports`` is a URL or a list of them, tried in order; a path with ``*``, ``?``
    or ``[`` is a glob (``/dev/ttyACM*``), expanded at every attempt. Setters
    (``show_text``, ``set_match_state``, ``light_points``, ``clear``) validate
    their argument, raising ValueError, record it and return at once; the unit
    gets the latest value of each part as soon as it can, again after it
    restarts or is plugged in again. ``beep`` is the one action: it is sent
    only while the link is up.
    """

    def __init__(
        self,
        ports: str | Sequence[str],
        *,
        baudrate: int = 115200,
        events: queue.Queue | None = None,
        timing: Timing = Timing(),
    ):
        self.ports = (ports,) if isinstance(ports, str) else tuple(ports)
        if not self.ports or not all(isinstance(p, str) and p for p in self.ports):
            raise ValueError(f"display ports must be non-empty strings, not {ports!r}")
        self.baudrate = baudrate
        self.timing = timing
        self.events: queue.Queue = events if events is not None else queue.Queue()
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._wake = threading.Event()
        self._inbox: collections.deque[bytes] = collections.deque()
        self._display = DisplayState()
        self._session: HostSession | None = None
        self._session_id = random.randrange(1, 0x10000)
        self._state = LinkState.DOWN
        self._detail = "not connected yet"
        self._port: str | None = None
        self._stopping = threading.Event()
        self._last_failed: str | None = None
        self._thread = threading.Thread(target=self._run, name="bgref-display-link", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ the referee's API

    def show_text(self, lines: str | Sequence[str]) -> None:
        """Show these text lines (a string is split at line breaks); the unit cuts them to fit."""
        lines = text_lines(lines)
        with self._lock:
            self._display.set_text(lines)
        self._wake.set()

    def set_match_state(self, match: MatchState | None) -> None:
        """Show the match panel (None hides it). A running clock counts from this call."""
        if match is not None and not isinstance(match, MatchState):
            raise ValueError(f"match state must be a MatchState or None, not {match!r}")
        with self._lock:
            self._display.set_match(match, time.monotonic())
        self._wake.set()

    def light_points(self, lights: Mapping[int, tuple]) -> None:
        """Light exactly these locations: ``{point: (colour, blink)}``; ``{}`` turns all off."""
        entries = point_lights(lights)
        with self._lock:
            self._display.set_lights(entries)
        self._wake.set()

    def clear(self) -> None:
        """Blank the text, the match panel and the lights."""
        with self._lock:
            self._display.clear()
        self._wake.set()

    def beep(self, frequency: int = 2000, duration: float = 0.15) -> bool:
        """Sound the unit's buzzer; False (nothing queued) unless the link is up with a buzzer."""
        if not 20 <= frequency <= 20000 or not 0 < duration <= 10:
            raise ValueError(f"beep needs 20..20000 Hz and 0..10 s, not {frequency!r} Hz, {duration!r} s")
        with self._lock:
            queued = self._session is not None and self._session.beep(frequency, round(duration * 1000))
        if queued:
            self._wake.set()
        return queued

    @property
    def state(self) -> LinkState:
        return self._state

    @property
    def detail(self) -> str:
        """Why the link is in its state, naming the port (e.g. the last error)."""
        return self._detail

    @property
    def port(self) -> str | None:
        """The URL of the open port, or None."""
        return self._port

    @property
    def unit(self) -> UnitInfo | None:
        """What the unit said it has, while the link is up."""
        with self._lock:
            session = self._session
            return session.info if session is not None and session.state is LinkState.UP else None

    def wait_for_state(self, state: LinkState, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the link to be in ``state``."""
        with self._changed:
            return self._changed.wait_for(lambda: self._state is state, timeout)

    def wait_synced(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until the unit has acknowledged the current screen."""
        with self._changed:
            return self._changed.wait_for(lambda: self._session is not None and self._session.synced(), timeout)

    def close(self) -> None:
        """Stop the thread and close the port. The link cannot be used afterwards."""
        self._stopping.set()
        self._wake.set()
        self._thread.join(timeout=5)

    def __enter__(self) -> DisplayLink:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ the link thread

    def _run(self) -> None:
        delay = self.timing.reconnect_min
        while not self._stopping.is_set():
            opened = self._open()
            if opened is not None and self._serve(*opened):
                delay = self.timing.reconnect_min
            if self._stopping.wait(delay):
                break
            delay = min(delay * 2, self.timing.reconnect_max)

    def _candidates(self) -> list[str]:
        urls: list[str] = []
        for entry in self.ports:
            if "://" not in entry and any(c in entry for c in "*?["):
                urls.extend(sorted(glob.glob(entry)))
            else:
                urls.append(entry)
        if self._last_failed in urls:  # try the others first
            i = urls.index(self._last_failed) + 1
            urls = urls[i:] + urls[:i]
        return urls

    def _open(self) -> tuple[serial.SerialBase, str] | None:
        candidates = self._candidates()
        errors = []
        for url in candidates:
            try:
                port = serial.serial_for_url(
                    url,
                    baudrate=self.baudrate,
                    timeout=READ_TIMEOUT,
                    write_timeout=WRITE_TIMEOUT,
                    exclusive=True,
                )
            except (serial.SerialException, OSError, ValueError) as err:
                errors.append(f"{url}: {err}")
                continue
            return port, url
        detail = "; ".join(errors) if errors else f"no port matches {', '.join(self.ports)}"
        with self._changed:
            self._set_state(LinkState.DOWN, detail)
        return None

    def _serve(self, port: serial.SerialBase, url: str) -> bool:
        """Talk to the unit on ``port`` until it fails; True if the session came up."""
        stop = threading.Event()
        errors: list[str] = []
        reader = threading.Thread(
            target=self._read, args=(port, url, stop, errors), name="bgref-display-reader", daemon=True
        )
        self._inbox.clear()
        with self._lock:
            self._session_id = next_session(self._session_id)
            session = HostSession(self._display, time.monotonic(), self._session_id, url, self.timing)
            self._session = session
            self._port = url
        reader.start()
        came_up = False
        reason = f"{url}: closed"
        try:
            while not self._stopping.is_set():
                self._wake.clear()
                now = time.monotonic()
                with self._changed:
                    while self._inbox:
                        session.receive(self._inbox.popleft(), now)
                    out = session.transmit(now)
                    self._publish(session)
                    came_up = came_up or session.state is LinkState.UP
                    timeout = session.next_timeout(now)
                if errors:
                    reason = errors[0]
                    break
                if session.failed:
                    reason = session.failed
                    self._last_failed = url
                    break
                if out:
                    try:
                        port.write(out)
                    except (serial.SerialException, OSError) as err:
                        reason = f"{url}: write failed: {err}"
                        break
                self._wake.wait(timeout)
        finally:
            stop.set()
            if hasattr(port, "cancel_read"):
                port.cancel_read()
            reader.join(timeout=2)
            port.close()
            with self._changed:
                session.close(time.monotonic())
                self._session = None
                self._port = None
                self._publish(session)
                self._set_state(LinkState.DOWN, reason)
        if came_up:
            self._last_failed = None
        return came_up

    def _read(self, port: serial.SerialBase, url: str, stop: threading.Event, errors: list[str]) -> None:
        try:
            while not stop.is_set():
                data = port.read(port.in_waiting or 1)
                if data:
                    self._inbox.append(data)
                    self._wake.set()
        except (serial.SerialException, OSError) as err:
            if not stop.is_set():
                errors.append(f"{url}: read failed: {err}")
                self._wake.set()

    def _publish(self, session: HostSession) -> None:
        """Under the lock: hand the session's events on and mirror its state."""
        for event in session.events:
            self.events.put(event)
            if isinstance(event, LinkChanged):
                self._state = event.state
                self._detail = event.detail
                log.info("display link %s: %s", event.state, event.detail)
        session.events.clear()
        self._changed.notify_all()

    def _set_state(self, state: LinkState, detail: str) -> None:
        """Under the lock: enter ``state``, reporting it unless nothing changed."""
        if state is not self._state or detail != self._detail:
            self._state = state
            self._detail = detail
            self.events.put(LinkChanged(state, detail, time.monotonic()))
            log.info("display link %s: %s", state, detail)
        self._changed.notify_all()
