"""GNU Backgammon's Match ID and eXtreme Gammon's XGID, both directions.

The Position ID lives on :class:`engine.position.Position`. A Match ID is 66
bits (cube, owner, player on roll, Crawford, game state, decision turn, double
offered, resignation, dice, match length, both scores) packed least significant
bit first into 9 bytes and written as 12 characters of base64. GNU Backgammon
sets bits past the 66th in match play; they are kept as ``extra`` so that every
ID decodes and encodes back to itself.

>>> MatchId.decode("cAkbAAAAAAAA").dice
(6, 6)
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from enum import IntEnum

from engine.position import BAR, BLACK, WHITE, Position, PositionError, Side, Variant


class IdError(ValueError):
    """A Match ID or XGID that cannot be decoded."""


class GameState(IntEnum):
    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(IntEnum):
    """What a resigning player gives: 1, 2 or 3 times the cube."""

    NONE = 0
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


_FIELDS = (  # name, bits, in Match ID order
    ("cube_log", 4), ("cube_owner", 2), ("on_roll", 1), ("crawford", 1), ("game_state", 3),
    ("turn", 1), ("double_offered", 1), ("resignation", 2), ("die1", 3), ("die2", 3),
    ("match_length", 15), ("score0", 15), ("score1", 15),
)


@dataclass(frozen=True)
class MatchId:
    """The fields of a GNU Backgammon Match ID.

    ``cube_owner`` is ``None`` for a centred cube; ``on_roll`` is the player who
    rolls or rolled; ``turn`` the player who must decide now (the opponent after
    a double or a resignation). ``dice`` is ``(0, 0)`` before the roll.
    """

    cube_value: int = 1
    cube_owner: Side | None = None
    on_roll: Side = WHITE
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: Side = WHITE
    double_offered: bool = False
    resignation: Resignation = Resignation.NONE
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    extra: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.cube_value < 1 or self.cube_value & (self.cube_value - 1) or self.cube_value > 2 ** 15:
            raise IdError(f"cube value {self.cube_value} is not a power of two up to 32768")
        if not all(0 <= d <= 6 for d in self.dice) or (0 in self.dice and self.dice != (0, 0)):
            raise IdError(f"dice {self.dice} are not a roll")
        for n in (self.match_length, *self.score):
            if not 0 <= n < 2 ** 15:
                raise IdError(f"{n} does not fit a Match ID's 15-bit field")

    def encode(self) -> str:
        values = {
            "cube_log": self.cube_value.bit_length() - 1,
            "cube_owner": 3 if self.cube_owner is None else int(self.cube_owner),
            "on_roll": int(self.on_roll), "crawford": int(self.crawford),
            "game_state": int(self.game_state), "turn": int(self.turn),
            "double_offered": int(self.double_offered), "resignation": int(self.resignation),
            "die1": self.dice[0], "die2": self.dice[1], "match_length": self.match_length,
            "score0": self.score[0], "score1": self.score[1],
        }
        bits, shift = 0, 0
        for name, width in _FIELDS:
            bits |= values[name] << shift
            shift += width
        bits |= self.extra << shift
        return base64.b64encode(bits.to_bytes(9, "little")).decode()

    @classmethod
    def decode(cls, text: str) -> MatchId:
        text = text.strip()
        try:
            if len(text) != 12:
                raise ValueError
            raw = base64.b64decode(text, validate=True)
        except (ValueError, binascii.Error):
            raise IdError(f"{text!r} is not a Match ID (12 characters of base64)") from None
        bits = int.from_bytes(raw, "little")
        v = {}
        for name, width in _FIELDS:
            v[name] = bits & ((1 << width) - 1)
            bits >>= width
        if v["cube_owner"] == 2:
            raise IdError(f"Match ID {text}: cube owner field 2 is not defined")
        if v["game_state"] > 4:
            raise IdError(f"Match ID {text}: game state {v['game_state']} is not defined")
        return cls(
            cube_value=1 << v["cube_log"],
            cube_owner=None if v["cube_owner"] == 3 else Side(v["cube_owner"]),
            on_roll=Side(v["on_roll"]), crawford=bool(v["crawford"]),
            game_state=GameState(v["game_state"]), turn=Side(v["turn"]),
            double_offered=bool(v["double_offered"]), resignation=Resignation(v["resignation"]),
            dice=(v["die1"], v["die2"]), match_length=v["match_length"],
            score=(v["score0"], v["score1"]), extra=bits,
        )


# --------------------------------------------------------------------------- XGID
@dataclass(frozen=True)
class Xgid:
    """An eXtreme Gammon position: board, cube, turn, dice, score and rules.

    White is XG's bottom player (upper-case letters), Black the top player.
    ``dice`` is ``(0, 0)`` before the roll; ``cube_action`` is ``"D"`` when a
    double is offered, ``"B"`` after a beaver, ``"R"`` after a raccoon.
    ``rules`` is the Crawford flag in match play and the Jacoby (1) and
    beaver (2) bits in money play.
    """

    position: Position
    cube_value: int = 1
    cube_owner: Side | None = None
    on_roll: Side = WHITE
    dice: tuple[int, int] = (0, 0)
    cube_action: str = ""
    score: tuple[int, int] = (0, 0)
    rules: int = 0
    match_length: int = 0
    max_cube: int = 10

    def encode(self) -> str:
        pts = self.position.points()
        chars = [_xg_char(-self.position.bar(BLACK))]
        chars += [_xg_char(n) for n in pts]
        chars.append(_xg_char(self.position.bar(WHITE)))
        owner = 0 if self.cube_owner is None else (1 if self.cube_owner == WHITE else -1)
        turn = 1 if self.on_roll == WHITE else -1
        dice = self.cube_action or f"{self.dice[0]}{self.dice[1]}"
        fields = ["".join(chars), self.cube_value.bit_length() - 1, owner, turn, dice,
                  self.score[0], self.score[1], self.rules, self.match_length, self.max_cube]
        return "XGID=" + ":".join(str(f) for f in fields)

    @classmethod
    def decode(cls, text: str, variant: Variant | str = Variant.STANDARD) -> Xgid:
        text = text.strip()
        body = text[5:] if text.upper().startswith("XGID=") else text
        fields = body.split(":")
        if len(fields) not in (9, 10) or len(fields[0]) != 26:
            raise IdError(f"{text!r} is not an XGID (26 board characters and 8 or 9 fields after it)")
        board = fields[0]
        counts = []
        for i, ch in enumerate(board):
            n = _xg_count(ch)
            if n is None:
                raise IdError(f"XGID character {i + 1} ({ch!r}) is not '-', A-P or a-p")
            counts.append(n)
        if counts[0] > 0 or counts[25] < 0:
            raise IdError("XGID bar characters hold the wrong colour")
        try:
            position = Position.from_points(counts[1:25], bar=(counts[25], -counts[0]), variant=variant)
            cube_log, owner, turn = int(fields[1]), int(fields[2]), int(fields[3])
            score = (int(fields[5]), int(fields[6]))
            rules, length = int(fields[7]), int(fields[8])
            max_cube = int(fields[9]) if len(fields) == 10 else 10
        except PositionError as err:
            raise IdError(f"XGID {text}: {err}") from None
        except ValueError:
            raise IdError(f"XGID {text}: cube, turn, score and length fields must be numbers") from None
        if owner not in (-1, 0, 1) or turn not in (-1, 1) or not 0 <= cube_log <= 15:
            raise IdError(f"XGID {text}: cube owner must be -1/0/1, turn -1/1, cube 0-15")
        dice_field = fields[4]
        action, dice = "", (0, 0)
        if dice_field in ("D", "B", "R"):
            action = dice_field
        elif len(dice_field) == 2 and dice_field.isdigit():
            dice = (int(dice_field[0]), int(dice_field[1]))
            if dice != (0, 0) and not all(1 <= d <= 6 for d in dice):
                raise IdError(f"XGID {text}: dice {dice_field} are not a roll")
        else:
            raise IdError(f"XGID {text}: dice field {dice_field!r} must be two digits, D, B or R")
        return cls(position, 1 << cube_log, None if owner == 0 else (WHITE if owner == 1 else BLACK),
                   WHITE if turn == 1 else BLACK, dice, action, score, rules, length, max_cube)


def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    return chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1)


def _xg_count(ch: str) -> int | None:
    if ch == "-":
        return 0
    if "A" <= ch <= "P":
        return ord(ch) - ord("A") + 1
    if "a" <= ch <= "p":
        return -(ord(ch) - ord("a") + 1)
    return None


__all__ = ["IdError", "GameState", "Resignation", "MatchId", "Xgid", "BAR"]
