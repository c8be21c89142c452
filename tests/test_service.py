"""The service and its outputs: LEDs and buzzer on mock pins, the simulated display unit, faults."""

from __future__ import annotations

import queue
import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.journal import Journal
from controller.outputs import DisplayOutput, GpioOutput, drain_presses
from controller.referee import Beep, Button, Decision, Display, Lights, PointLights, Referee, Scoreboard
from controller.service import Service, open_match
from engine.match import MatchRules
from engine.position import BLACK, WHITE, Position
from firmware_bridge.link import DisplayLink
from hardware.gpio import DEFAULT_PINS, TableSignals
from hardware.sim.display_unit import SimulatedDisplayUnit

from referee_table import seen


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def signals(factory):
    events = queue.Queue()
    s = TableSignals(DEFAULT_PINS, events=events, pin_factory=factory)
    yield s
    s.close()


def test_lights_follow_the_referee(factory, signals):
    out = GpioOutput(signals)
    out.handle(Lights(WHITE, ok=True, illegal=False))
    assert factory.pin(DEFAULT_PINS["turn_white"]).state and not factory.pin(DEFAULT_PINS["turn_black"]).state
    assert factory.pin(DEFAULT_PINS["ok"]).state and not factory.pin(DEFAULT_PINS["illegal"]).state
    out.handle(Lights(BLACK, ok=False, illegal=True))
    time.sleep(0.6)
    illegal = factory.pin(DEFAULT_PINS["illegal"])
    assert factory.pin(DEFAULT_PINS["turn_black"]).state and not factory.pin(DEFAULT_PINS["ok"]).state
    assert [s.state for s in illegal.states].count(True) >= 2  # blinking
    out.handle(Lights(BLACK, ok=True, illegal=False))
    assert not factory.pin(DEFAULT_PINS["illegal"]).state and factory.pin(DEFAULT_PINS["ok"]).state


def test_illegal_beeps_three_times(factory, signals):
    GpioOutput(signals).handle(Beep("illegal"))
    time.sleep(0.8)
    buzzer = factory.pin(DEFAULT_PINS["buzzer"])
    assert [s.state for s in buzzer.states].count(True) == 3


def test_buttons_reach_the_referee(factory, signals):
    for role in ("accept", "undo", "menu"):
        factory.pin(DEFAULT_PINS[role]).drive_low()
        factory.pin(DEFAULT_PINS[role]).drive_high()
    presses = drain_presses(signals.events)
    assert [p.button for p in presses] == [Button.ACCEPT, Button.UNDO, Button.MENU]


def test_display_unit_shows_text_score_and_point_lights():
    with SimulatedDisplayUnit() as unit:
        link = DisplayLink(unit.url)
        try:
            out = DisplayOutput(link)
            out.handle(Display(("Alice 1 - 0 Bob (5)", "Illegal: point 7 is closed")))
            out.handle(Scoreboard((1, 0), 5, False, False, 2, BLACK, (300.0, 280.0, "white")))
            out.handle(PointLights({"7": "red", "bar": "red"}))
            assert unit.wait_until(lambda s: any("point 7" in r for r in s.rows) and 7 in s.lights
                                   and 25 in s.lights and s.match is not None, timeout=5)
        finally:
            link.close()


class Broken:
    def handle(self, signal):
        raise OSError("the display unit was unplugged")


class Camera:
    """A camera that delivers ``good`` frames, then fails ``bad`` times, then delivers again."""

    def __init__(self, good: int, bad: int):
        self.good, self.bad, self.released = good, bad, 0

    def read(self):
        if self.good:
            self.good -= 1
            return True, object()
        if self.bad:
            self.bad -= 1
            return False, None
        return True, object()

    def release(self):
        self.released += 1


class Reader:
    def read(self, frame, t):
        return seen(Position.initial(), t=t)


def test_a_failing_output_and_a_failing_camera_do_not_stop_the_referee(tmp_path):
    journal = Journal(tmp_path / "j")
    log = open_match(journal, ("A", "B"), MatchRules(length=3))
    shown = []

    class Keep:
        def handle(self, signal):
            shown.append(signal)

    now = [0.0]
    camera = Camera(good=3, bad=2)
    service = Service(Referee(log), journal, Reader(), [Broken(), Keep()], open_camera=lambda: camera,
                      clock=lambda: now[0])
    service.start()
    for _ in range(40):
        now[0] += 0.5
        service.step()
    assert service.output_errors > 0
    assert [e["type"] for e in Journal(tmp_path / "j").events] == ["match", "game"]
    assert any(isinstance(s, Display) and "Camera lost" in s.lines for s in shown)
    assert camera.released >= 1 and service.frames > 3


def test_events_are_journaled_before_signals(tmp_path):
    journal = Journal(tmp_path / "j")
    log = open_match(journal, ("A", "B"), MatchRules(length=3))
    seen_in_journal = []

    class Check:
        def handle(self, signal):
            seen_in_journal.append(len(Journal(tmp_path / "j").events))

    service = Service(Referee(log), journal, Reader(), [Check()], open_camera=lambda: None)
    service.publish(Decision(events=[{"type": "game"}], signals=[Display(("x",))]))
    assert seen_in_journal == [2]


def test_bgref_run_sim_starts_the_simulated_table(tmp_path):
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--sim", "--frames", "15", "--speed", "100"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "display unit:" in result.stdout and "LEDs:" in result.stdout and "15 frames" in result.stdout


def test_a_new_match_archives_the_finished_one(tmp_path):
    from controller.config import Config
    from controller.recorder import Recorder
    from controller.referee import NewMatchRequested
    from controller.table import _journal_and_log, _record_path, start_new_match
    config = Config(journal_dir=tmp_path / "journal", record_dir=tmp_path / "matches")
    journal, log = _journal_and_log(config, ("Ann", "Bo"), MatchRules(length=1))
    journal.append({"type": "game"})
    log.apply({"type": "game"})
    recorder = Recorder(log, _record_path(config, log))
    service = Service(Referee(log), journal, Reader(), [recorder], open_camera=lambda: None,
                      new_match=start_new_match(config, ("Ann", "Bo"), MatchRules(length=1)))
    service.publish(Decision(signals=[NewMatchRequested()]))
    archived = list((tmp_path / "journal").glob("*-Ann-Bo-1.journal"))
    assert len(archived) == 1 and [e["type"] for e in Journal(archived[0]).events] == ["match", "game"]
    assert [e["type"] for e in Journal(tmp_path / "journal" / "current.journal").events] == ["match"]
    assert service.referee.log is not log and service.outputs[0].log is service.referee.log


def test_a_moved_camera_is_calibrated_again_on_the_known_position(tmp_path):
    from hardware.sim.renderer import Conditions, render
    from vision.reader import BoardReader
    image, _ = render(Position.initial(), seed=4, style="tournament", conditions=Conditions.clean())

    class Moved:
        def read(self, frame, t):
            obs = seen(Position.initial(), t=t)
            return type("Obs", (), {**{k: getattr(obs, k) for k in obs.__dataclass_fields__},
                                    "camera_moved": True, "to_position": obs.to_position})()

    journal = Journal(tmp_path / "j")
    log = open_match(journal, ("A", "B"), MatchRules(length=3))
    service = Service(Referee(log), journal, Moved(), [], open_camera=lambda: None,
                      calibration_path=tmp_path / "cal.json")
    service.handle_frame(image, 1.0)
    assert service.recalibrate_at == 1.0
    service.handle_frame(image, 1.1)
    assert isinstance(service.reader, BoardReader) and (tmp_path / "cal.json").exists()


def test_the_dice_size_a_reader_learns_is_saved_with_the_calibration_and_outlives_a_recalibration(tmp_path):
    """Precision dice teach the reader their size once they lie still; the service keeps it
    in the calibration file, and a camera calibrated again keeps reading them at it."""
    from hardware.sim.renderer import Conditions, Die, render
    from vision.calibration import Calibration, calibrate
    from vision.reader import BoardReader

    def frame(*dice):
        return render(Position.initial(), dice=dice, seed=32, style="tournament", conditions=Conditions.clean())[0]

    opening, throw = frame(), frame(Die(5, "white", yaw=0.2, size=0.36), Die(2, "black", yaw=0.9, size=0.36))
    path = tmp_path / "cal.json"
    calibrate(opening).save(path)
    journal = Journal(tmp_path / "j")
    service = Service(Referee(open_match(journal, ("A", "B"), MatchRules(length=3))), journal,
                      BoardReader(Calibration.load(path)), [], open_camera=lambda: None, calibration_path=path)
    service.handle_frame(opening, 1.0)
    service.handle_frame(throw, 2.0)                    # the dice still roll: nothing learned
    assert Calibration.load(path).dice_size is None
    service.handle_frame(throw, 2.5)
    assert Calibration.load(path).dice_size == 0.36
    service.recalibrate_at = 3.0
    service.handle_frame(opening, 3.0)
    assert service.reader.calibration.dice_size == 0.36 and Calibration.load(path).dice_size == 0.36


def test_a_calibration_file_that_cannot_be_written_leaves_the_referee_reading(tmp_path, caplog):
    """The learned dice size is saved as it is learned; a disk that refuses the file only
    costs the size after a restart, never the referee."""
    class Learned:
        def save(self, path):
            raise OSError(28, "No space left on device")

    class Learning:
        calibration = None

        def read(self, frame, t):
            self.calibration = Learned()        # the reader learned the table's dice size
            return seen(Position.initial(), t=t)

    journal = Journal(tmp_path / "j")
    service = Service(Referee(open_match(journal, ("A", "B"), MatchRules(length=3))), journal, Learning(), [],
                      open_camera=lambda: None, calibration_path=tmp_path / "cal.json")
    service.handle_frame(None, 1.0)
    assert service.frames == 1 and "No space left on device" in caplog.text
