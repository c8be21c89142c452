"""Putting a table together: the camera, vision, the referee, the devices and the files.

``real_table(config)`` wires the devices the configuration names; ``simulated_table``
wires the simulated table of ``hardware/sim`` (players replaying a recorded match
in front of the simulated camera, the display unit's firmware behind a pty,
gpiozero's mock pins) to the same referee, service and outputs, and shows in
the terminal what a player would see.
"""

from __future__ import annotations

import datetime
import logging
import queue
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from controller.config import Config
from controller.journal import Journal
from controller.outputs import DisplayOutput, GpioOutput, drain_presses
from controller.recorder import Recorder
from controller.referee import Referee
from controller.replay import PlayersSight, camera_frames
from controller.service import Service, open_match
from controller.terminal import TerminalView
from engine.position import Position
from engine.records.mat import read_mat
from engine.records.validate import check_match
from vision.calibration import Calibration, CalibrationError, calibrate
from vision.reader import BoardReader

log = logging.getLogger("bgref.table")

DEMO_MATCH = Path(__file__).resolve().parents[1] / "hardware" / "sim" / "matches" / "demo-3-point.mat"


@dataclass
class Table:
    """A wired table: run ``service`` until it ends, then ``close()``."""

    service: Service
    closers: list = field(default_factory=list)
    running: Callable[[], bool] = lambda: True
    stopped: Callable[[], str | None] = lambda: None

    def close(self) -> None:
        for close in reversed(self.closers):
            try:
                close()
            except Exception as err:  # closing one device must not stop closing the others
                log.warning("closing %s: %s", close, err)


def _journal_and_log(config: Config, players: tuple[str, str], rules):
    journal = Journal(Path(config.journal_dir) / "current.journal")
    match_log = open_match(journal, players, rules)
    if not match_log.date:
        match_log.date = datetime.date.today().strftime("%Y.%m.%d")
    return journal, match_log


def _record_path(config: Config, match_log) -> Path:
    names = "-".join("".join(ch for ch in p if ch.isalnum()) or "player" for p in match_log.players)
    date = (match_log.date or "match").replace(".", "-")
    return Path(config.record_dir) / f"{date}-{names}.mat"


def _referee(config: Config, match_log) -> Referee:
    return Referee(match_log, config.timing, config.clock)


def start_new_match(config: Config, players: tuple[str, str], rules) -> Callable[[Service], None]:
    """What the service does when the players ask for a new match: the finished one is archived.

    The journal of the finished match is renamed beside it (``<date>-<players>-<n>.journal``)
    and a new one is started; the recorder writes the new match to its own file.
    """
    def new_match(service: Service) -> None:
        old_log = service.referee.log
        service.journal.close()
        current = service.journal.path
        stem = _record_path(config, old_log).stem
        n = 1
        while (current.parent / f"{stem}-{n}.journal").exists():
            n += 1
        current.rename(current.parent / f"{stem}-{n}.journal")
        service.journal, match_log = _journal_and_log(config, players, rules)
        service.referee = _referee(config, match_log)
        service.outputs = [Recorder(match_log, _record_path(config, match_log)) if isinstance(o, Recorder) else o
                           for o in service.outputs]
        service.publish(service.referee.start(service.clock()))
    return new_match


def simulated_table(config: Config, match_file: Path = DEMO_MATCH, seed: int = 0, speed: float = 1.0,
                    size: tuple[int, int] = (1280, 720), style: str = "classic", difficulty: float = 0.3,
                    stream=sys.stdout, pty_link: str | None = None) -> Table:
    """The simulated table playing ``match_file``, with every device simulated."""
    from gpiozero.pins.mock import MockFactory

    from hardware.gpio import DEFAULT_PINS, TableSignals
    from hardware.sim.display_unit import SimulatedDisplayUnit
    from hardware.sim.render_sequence import TableCamera
    from hardware.sim.table import SimPlayers, SimTableSource
    from firmware_bridge.link import DisplayLink

    source_match = check_match(read_mat(Path(match_file).read_text(encoding="utf-8", errors="replace"),
                                        str(match_file)))
    record = source_match.record
    variant = record.rules.variant
    events: queue.Queue = queue.Queue()
    table = Table(service=None)  # type: ignore[arg-type]
    camera = TableCamera(style=style, seed=seed, fps=10.0, size=size, difficulty=difficulty,
                         position=Position.initial(variant))
    reader = BoardReader(calibrate(next(camera_frames(camera)).image, Position.initial(variant)))
    players = SimPlayers(source_match, camera, seed=seed)
    source = SimTableSource(players, events, speed=speed)
    unit = SimulatedDisplayUnit(link=pty_link).start()
    table.closers.append(unit.close)
    link = DisplayLink(unit.url, events=events)
    table.closers.append(link.close)
    signals = TableSignals(DEFAULT_PINS, events=events, pin_factory=MockFactory())
    table.closers.append(signals.close)
    journal, match_log = _journal_and_log(config, record.players, record.rules)
    table.closers.append(lambda: table.service.journal.close())
    view = TerminalView(stream, board=lambda: table.service.last_observation, variant=variant,
                        unit=unit.render)
    outputs = [view, GpioOutput(signals), DisplayOutput(link), PlayersSight(players),
               Recorder(match_log, _record_path(config, match_log))]
    table.service = Service(_referee(config, match_log), journal, reader, outputs,
                            open_camera=lambda: source, buttons=lambda: drain_presses(events),
                            clock=lambda: source.now, new_match=start_new_match(config, record.players, record.rules))
    table.running = source.isOpened
    table.stopped = lambda: source.error
    return table


def real_table(config: Config) -> Table:
    """The devices of the configuration: camera, display unit and GPIO, each optional but the camera."""
    from hardware.camera import open_source

    events: queue.Queue = queue.Queue()
    table = Table(service=None)  # type: ignore[arg-type]
    outputs: list = [TerminalView(board=lambda: table.service.last_observation, variant=config.rules.variant)]
    if config.display.ports:
        from firmware_bridge.link import DisplayLink
        link = DisplayLink(config.display.ports, baudrate=config.display.baudrate, events=events)
        table.closers.append(link.close)
        outputs.append(DisplayOutput(link))
    if config.gpio is not None:
        from hardware.gpio import TableSignals
        signals = TableSignals(config.gpio.pins(), events=events)
        table.closers.append(signals.close)
        outputs.append(GpioOutput(signals))
    journal, match_log = _journal_and_log(config, config.players, config.rules)
    table.closers.append(lambda: table.service.journal.close())
    outputs.append(Recorder(match_log, _record_path(config, match_log)))
    reader = BoardReader(_calibration(config, open_source(config.camera.source), match_log.position))
    table.service = Service(_referee(config, match_log), journal, reader, outputs,
                            open_camera=lambda: open_source(config.camera.source),
                            buttons=lambda: drain_presses(events), calibration_path=config.camera.calibration,
                            new_match=start_new_match(config, config.players, config.rules))
    return table


def _calibration(config: Config, camera, position: Position) -> Calibration:
    """The saved calibration, or a new one from the camera's view of the current position (then saved)."""
    path = Path(config.camera.calibration)
    if path.exists():
        return Calibration.load(path)
    try:
        for _ in range(30):
            ok, frame = camera.read()
            if ok:
                try:
                    calibration = calibrate(frame, position)
                except CalibrationError:
                    continue
                calibration.save(path)
                return calibration
    finally:
        camera.release()
    raise CalibrationError(f"cannot find the board in the camera's view to calibrate ({config.camera.source})")
