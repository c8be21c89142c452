"""A recorded match as its file states it: players, rules, games and turns.

The model keeps what the record says, with the line of the file each item
came from, and decides nothing about legality: :mod:`engine.records.validate`
replays it with the engine. Player 0 (White, the left column of a ``.mat``
file) and player 1 (Black, the right column) are :class:`~engine.position.Side`
values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine.match import MatchRules
from engine.moves import Segment
from engine.position import Side


class RecordError(ValueError):
    """A record that cannot be read or is not a legal match.

    ``source`` names the file (used only in the message), ``line`` is 1-based
    (0 when the problem is not tied to a line), ``reason`` says what is wrong
    and ``rule`` is the engine's :class:`~engine.moves.Rule` when a play broke
    one. ``str()`` is ``SOURCE:LINE: reason``.
    """

    def __init__(self, source: str, line: int, reason: str, rule=None):
        super().__init__(f"{source}:{line}: {reason}")
        self.source = source
        self.line = line
        self.reason = reason
        self.rule = rule


class Action(str, Enum):
    """What one entry of a game does."""

    ROLL = "roll"          # dice and the play made with them (empty when nothing could be played)
    DOUBLE = "double"      # ``Doubles => N``
    BEAVER = "beaver"      # ``Beavers => N``: an immediate redouble (a second one is a raccoon)
    TAKE = "take"
    DROP = "drop"
    RESIGN = "resign"      # ``Losses N point(s)``: the resignation of the player writing it


@dataclass(frozen=True, slots=True)
class Turn:
    """One entry in a player's column.

    ``number`` is the move number of the line (the number counts lines, not
    turns). For a roll, ``dice`` are as written and ``play`` the segments of
    ``text`` (the play as written; empty for a dance). ``unplayed`` marks dice
    that were rolled but never played (``????``, or a roll written after the
    game ended). ``value`` is the cube offered by a double or beaver, or the
    points of a resignation.
    """

    line: int
    number: int
    side: Side
    action: Action
    dice: tuple[int, int] | None = None
    play: tuple[Segment, ...] = ()
    text: str = ""
    value: int = 0
    unplayed: bool = False

    def describe(self) -> str:
        """The entry as a .mat file writes it, for messages."""
        if self.action is Action.ROLL:
            written = self.text or ("????" if self.unplayed else "(no play)")
            return f"{self.dice[0]}{self.dice[1]}: {written}"
        return {
            Action.DOUBLE: f"Doubles => {self.value}",
            Action.BEAVER: f"Beavers => {self.value}",
            Action.TAKE: "Takes",
            Action.DROP: "Drops",
            Action.RESIGN: f"Losses {self.value} point{'s' if self.value != 1 else ''}",
        }[self.action]


@dataclass(frozen=True, slots=True)
class Result:
    """The ``Wins N point(s) [and the match]`` line of a game."""

    line: int
    winner: Side
    points: int
    and_the_match: bool = False

    def describe(self) -> str:
        match = " and the match" if self.and_the_match else ""
        return f"Wins {self.points} point{'s' if self.points != 1 else ''}{match}"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: its number, the score before it, its turns and its result (``None`` if unfinished)."""

    number: int
    line: int
    score: tuple[int, int]
    score_line: int
    turns: tuple[Turn, ...]
    result: Result | None = None


@dataclass(frozen=True)
class MatchRecord:
    """A whole record: header pairs in file order, players (left, right), rules and games."""

    players: tuple[str, str]
    rules: MatchRules
    games: tuple[GameRecord, ...]
    headers: tuple[tuple[str, str], ...] = ()
    length_line: int = 0
    source: str = field(default="<match>", compare=False)

    @property
    def length(self) -> int:
        return self.rules.length

    def header(self, key: str) -> str | None:
        for k, v in self.headers:
            if k == key:
                return v
        return None

    def error(self, line: int, reason: str, rule=None) -> RecordError:
        return RecordError(self.source, line, reason, rule)


__all__ = ["RecordError", "Action", "Turn", "Result", "GameRecord", "MatchRecord"]
