"""The service loop: frames and buttons in, the referee, the journal first, then the outputs.

One iteration reads a frame, lets vision read it, feeds the observation and any
button presses to the referee, appends the events it accepted to the journal
(``fsync``) and only then hands its signals to every output. An output that
fails (a display unplugged, a full disk for the match file) is reported and
skipped; it never stops the referee. A camera that stops delivering frames is
re-opened with back-off while the players are told.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Protocol

from controller.journal import Journal
from controller.match_log import MatchLog
from controller.referee import Beep, Decision, Display, NewMatchRequested, Press, RecalibrateRequested, Referee
from vision.calibration import CalibrationError, calibrate
from vision.reader import BoardReader

log = logging.getLogger("bgref.service")


class Output(Protocol):
    """Anything that shows or stores the referee's signals (LEDs, display unit, recorder, terminal)."""

    def handle(self, signal) -> None: ...


class Reader(Protocol):
    def read(self, frame, timestamp: float): ...


def open_match(journal: Journal, players: tuple[str, str], rules) -> MatchLog:
    """The match of a journal: a new one is started with its settings; an old one is folded back."""
    if not journal.events:
        match_log = MatchLog(players, rules)
        journal.append(match_log.events[0])
        return match_log
    return MatchLog.from_events(journal.events)


@dataclass
class CameraHealth:
    """Re-opening a camera that failed, with back-off from ``first`` to ``longest`` seconds."""

    first: float = 0.5
    longest: float = 10.0
    failures: int = 0
    retry_at: float = 0.0

    def failed(self, now: float) -> None:
        self.failures += 1
        self.retry_at = now + min(self.longest, self.first * 2 ** (self.failures - 1))

    def ok(self) -> None:
        self.failures = 0


class Service:
    """Wires a frame source, a reader, the referee, the journal and the outputs."""

    def __init__(self, referee: Referee, journal: Journal, reader: Reader, outputs: Iterable[Output],
                 open_camera: Callable[[], object], buttons: Callable[[], list[Press]] = lambda: [],
                 clock: Callable[[], float] = time.monotonic, calibration_path=None,
                 new_match: Callable[[Service], None] | None = None):
        self.referee = referee
        self.calibration_path = calibration_path
        self.new_match = new_match
        self.recalibrate_at: float | None = None
        self.journal = journal
        self.reader = reader
        self.saved_calibration = getattr(reader, "calibration", None)
        self.outputs = list(outputs)
        self.open_camera = open_camera
        self.buttons = buttons
        self.clock = clock
        self.camera = None
        self.health = CameraHealth()
        self.frames = 0
        self.output_errors = 0
        self.last_observation = None

    # ------------------------------------------------------------------ signals
    def publish(self, decision: Decision) -> None:
        """Journal the events (durably), then show the signals."""
        for event in decision.events:
            self.journal.append(event)
        for signal in decision.signals:
            if isinstance(signal, RecalibrateRequested):
                self.recalibrate_at = self.clock()
            elif isinstance(signal, NewMatchRequested) and self.new_match is not None:
                self.new_match(self)
            for output in self.outputs:
                try:
                    output.handle(signal)
                except Exception as err:  # an output must never stop the referee
                    self.output_errors += 1
                    log.warning("output %s failed on %s: %s", type(output).__name__, type(signal).__name__, err)

    def start(self) -> None:
        self.publish(self.referee.start(self.clock()))

    # ------------------------------------------------------------------ one iteration
    def step(self) -> bool:
        """Read one frame (re-opening the camera when needed) and handle it; False when no frame came."""
        now = self.clock()
        for press in self.buttons():
            self.publish(self.referee.feed(press))
        if self.camera is None:
            if now < self.health.retry_at:
                return False
            try:
                self.camera = self.open_camera()
            except (OSError, ValueError, RuntimeError) as err:
                self._camera_failed(now, f"cannot open the camera: {err}")
                return False
        ok, frame = self.camera.read()
        if not ok or frame is None:
            self._camera_failed(now, "the camera stopped sending pictures")
            return False
        if self.health.failures:
            self.health.ok()
            self.publish(self.referee.start(now))
        self.handle_frame(frame, now)
        return True

    def handle_frame(self, frame, now: float) -> None:
        if self.recalibrate_at is not None and now >= self.recalibrate_at:
            self.recalibrate(frame, now)
        observation = self.reader.read(frame, now)
        self.keep_what_was_learned()
        if getattr(observation, "camera_moved", False) and self.recalibrate_at is None:
            self.recalibrate_at = now  # the referee knows the position: calibrate again without touching it
        self.handle_observation(observation, now)

    def keep_what_was_learned(self) -> None:
        """What the reader learned of the table (the dice's size) is saved with the
        calibration, so that a referee started again reads the table's dice from the
        first throw. A file that cannot be written leaves the referee going on."""
        calibration = getattr(self.reader, "calibration", None)
        if calibration is self.saved_calibration:
            return
        self.saved_calibration = calibration
        if self.calibration_path is not None:
            try:
                calibration.save(self.calibration_path)
            except OSError as err:
                log.warning("cannot save the calibration to %s: %s", self.calibration_path, err)

    def recalibrate(self, frame, now: float) -> None:
        """Calibrate the camera again on the position the referee knows is on the board."""
        try:
            calibration = calibrate(frame, self.referee.log.position)
        except CalibrationError as err:
            self.recalibrate_at = now + 2.0
            log.warning("calibration failed: %s", err)
            self.publish(Decision(signals=[Display(("Cannot see the board to calibrate:", str(err)[:60]))]))
            return
        self.recalibrate_at = None
        known = self.saved_calibration          # the reader's so far: the table's dice are those it had
        self.reader = BoardReader(replace(calibration, dice_size=known.dice_size) if known else calibration)
        self.keep_what_was_learned()
        self.publish(self.referee.start(now))

    def handle_observation(self, observation, now: float) -> None:
        self.last_observation = observation
        self.frames += 1
        self.publish(self.referee.feed(observation, now))

    def _camera_failed(self, now: float, why: str) -> None:
        if self.camera is not None:
            try:
                self.camera.release()
            except Exception:  # a camera that failed may fail to close too
                pass
            self.camera = None
        first = self.health.failures == 0
        self.health.failed(now)
        log.warning("%s; retrying in %.1f s", why, self.health.retry_at - now)
        if first:
            self.publish(Decision(signals=[Beep("attention"), Display(("Camera lost", "reconnecting..."))]))

    def run(self, until: Callable[[], bool] = lambda: False, idle: float = 0.01) -> None:
        self.start()
        while not until():
            if not self.step():
                time.sleep(idle)
