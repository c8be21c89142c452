"""Replaying a recorded match at the simulated table, through camera, vision, referee and recorder.

The simulated players (``hardware.sim.table``) play the match from the file;
the referee sees only the rendered frames (read by vision) and the buttons the
players press, exactly as at a real table, and the recorder writes what the
referee accepted. The recorded file must equal the source match. With a journal
folder, a replay that was killed carries on where it stopped when run again.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from controller.journal import Journal
from controller.match_log import MatchLog
from controller.recorder import Recorder
from controller.referee import Button, Display, Lights, Press, Referee
from controller.service import Service, open_match
from engine.match import Phase
from engine.position import WHITE, Position
from engine.records.mat import read_mat
from engine.records.model import Action
from engine.records.validate import CheckedMatch, check_match
from hardware.sim.render_sequence import TableCamera
from firmware_bridge.events import ButtonPress
from hardware.sim.table import SimPlayers, Tally
from vision.calibration import calibrate
from vision.reader import BoardReader


class PlayersSight:
    """An output: what the simulated players see of the table (the red light and the display)."""

    def __init__(self, players: SimPlayers):
        self.players = players

    def handle(self, signal) -> None:
        if isinstance(signal, Lights):
            self.players.see_lights(signal.illegal)
        elif isinstance(signal, Display):
            self.players.see_display(signal.lines)


@dataclass
class ReplayResult:
    tally: Tally
    frames: int
    seconds: float
    log: MatchLog
    same_match: bool
    differences: list[str]

    def summary(self) -> dict:
        return {"turns": self.tally.turns, "injected": self.tally.injected, "caught": self.tally.caught,
                "false_alarms": self.tally.false_alarms, "seconds": round(self.seconds, 1)}


def compare(source: CheckedMatch, recorded: CheckedMatch) -> list[str]:
    """Where the recorded match differs from the source: plays, cube actions and results."""
    differences = []
    if len(source.games) != len(recorded.games):
        differences.append(f"{len(recorded.games)} games recorded, {len(source.games)} in the source")
    for n, (a, b) in enumerate(zip(source.games, recorded.games), start=1):
        def entries(game):
            out = []
            for t in game.turns:
                if t.turn.unplayed:
                    continue
                if t.turn.action is Action.ROLL:
                    out.append(("roll", t.turn.side, tuple(sorted(t.turn.dice)), t.position.position_id(WHITE)))
                elif t.turn.action is not Action.RESIGN:
                    out.append((t.turn.action.value, t.turn.side, t.turn.value))
            return out
        ea, eb = entries(a), entries(b)
        for i, (x, y) in enumerate(zip(ea, eb), start=1):
            if x != y:
                differences.append(f"game {n}, entry {i}: source {x}, recorded {y}")
                break
        if len(ea) != len(eb):
            differences.append(f"game {n}: {len(eb)} entries recorded, {len(ea)} in the source")
        oa = a.outcome and (a.outcome.winner, a.outcome.points)
        ob = b.outcome and (b.outcome.winner, b.outcome.points)
        if oa != ob:
            differences.append(f"game {n}: result {ob} recorded, {oa} in the source")
    return differences


def _resume_point(log: MatchLog) -> tuple[int, int]:
    """(game index, entry index) the players carry on from, after the events already journaled."""
    if not log.games:
        return 0, 0
    game = log.games[-1]
    if log.game is not None and log.game.phase is Phase.OVER:
        return len(log.games), 0
    return len(log.games) - 1, sum(1 for t in game.turns if t.turn.action is not Action.ROLL or t.play is not None)


def _cube_on_table(log: MatchLog) -> tuple[int, str]:
    game = log.game
    if game is None or game.phase is Phase.OVER:
        return 1, "centre"
    if game.phase is Phase.DOUBLED:
        return game.offer, str(game.answerer.opponent)
    return game.cube, "centre" if game.owner is None else str(game.owner)


def replay(match_file: str | Path, out: str | Path, seed: int = 0, journal_dir: str | Path | None = None,
           mistakes: float = 0.0, size: tuple[int, int] = (1280, 720), fps: float = 10.0,
           difficulty: float = 0.5, style: str = "classic", progress=None, eyes=None) -> ReplayResult:
    """Play ``match_file`` at the simulated table and record it to ``out`` (and its ``.sgf``).

    ``eyes`` turns a camera frame into an observation; by default vision calibrates
    on the opening position and reads every frame. Without ``journal_dir`` the journal
    lives in a temporary folder removed when the replay ends.
    """
    if journal_dir is None:
        with tempfile.TemporaryDirectory(prefix="bgref-replay-") as folder:
            return replay(match_file, out, seed=seed, journal_dir=folder, mistakes=mistakes, size=size, fps=fps,
                          difficulty=difficulty, style=style, progress=progress, eyes=eyes)
    path = Path(match_file)
    source = check_match(read_mat(path.read_text(encoding="utf-8", errors="replace"), str(path)))
    record = source.record
    started = time.perf_counter()
    variant = record.rules.variant
    folder = Path(journal_dir)
    journal = Journal(folder / "replay.journal")
    log = open_match(journal, record.players, record.rules)
    game_index, entry_index = _resume_point(log)
    camera = TableCamera(style=style, seed=seed, fps=fps, size=size, difficulty=difficulty,
                         position=Position.initial(variant))
    if eyes is None:
        reader = BoardReader(calibrate(next(camera_frames(camera)).image, Position.initial(variant)))

        def eyes(frame):
            return reader.read(frame.image, frame.timestamp)
    players = SimPlayers(source, camera, mistakes=mistakes, seed=seed)
    if game_index or entry_index:
        players.resume(game_index, entry_index, log.position, _cube_on_table(log))
    referee = Referee(log)
    recorder = Recorder(log, Path(out))
    service = Service(referee, journal, None, [PlayersSight(players), recorder], open_camera=lambda: None)
    service.start()
    frames = 0
    stuck = []
    try:
        for item in players.actions():
            if isinstance(item, ButtonPress):
                service.publish(referee.feed(Press(Button(item.button), item.at)))
                continue
            service.handle_observation(eyes(item), item.timestamp)
            frames += 1
            if progress is not None:
                progress(frames, log)
    except RuntimeError as err:  # the players could not go on: the referee never let them
        stuck.append(f"the players were stuck at frame {frames}: {err}")
    recorder.write()
    journal.close()
    differences = stuck + compare(source, log.checked())
    return ReplayResult(players.tally, frames, time.perf_counter() - started, log, not differences, differences)


def camera_frames(camera: TableCamera):
    """A still frame of the table as it is (for calibration before play starts)."""
    camera.hold(0.1)
    return camera.frames()
