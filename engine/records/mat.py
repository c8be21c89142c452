"""The Jellyfish ``.mat`` match text: a forgiving reader and a GNU Backgammon-style writer.

The reader accepts every dialect real files use (Backgammon Galaxy, Backgammon
Studio and eXtreme Gammon, GNU Backgammon, older online exports): optional
``; [Key "Value"]`` headers, ``N point match`` (0 for a money session), moves
with or without ``*``, ``25``/``bar``, ``0``/``off``, ``(2)`` repeats, merged
steps, dances as bare dice or ``Cannot Move``, cube actions, ``Beavers => N``,
``Wins N point(s) [and the match]`` and ``Losses N point(s)`` resignations,
LF or CRLF line ends. It only reads: legality is :mod:`engine.records.validate`'s
job. Any line it cannot read raises :class:`RecordError` naming the line.

The writer produces the dialect GNU Backgammon's own ``export match mat``
writes (hits marked, bar ``25``, off ``0``, one ``from/to`` per die, fixed
columns), so that GNU Backgammon and eXtreme Gammon import it as written.

>>> text = '''5 point match
...
...  Game 1
...  alice : 0                       bob : 0
...   1) 31: 8/5 6/5                 61: 13/7 8/7
... '''
>>> record = read_mat(text, "demo.mat")
>>> record.players, record.length, len(record.games[0].turns)
(('alice', 'bob'), 5, 2)
"""

from __future__ import annotations

import re

from engine.match import MatchRules
from engine.moves import InvalidPlayError, parse_play
from engine.position import BLACK, WHITE, Side, Variant
from engine.records.model import Action, GameRecord, MatchRecord, RecordError, Result, Turn
from engine.records.validate import CheckedGame, CheckedMatch, CheckedTurn

MAX_LINE = 1000
"""Longer lines are refused: no real record comes near it."""

RIGHT_COLUMN = 16
"""An entry alone on its line starting at this column or later is the right player's."""

DEFAULT_CUBE_LIMIT = 1024
"""The highest cube when the header does not give ``CubeLimit`` (online sites use 1024)."""

_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_HEADER = re.compile(r'^;\s*\[\s*([^"\[\]]+?)\s*"([^"]*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(\d{1,4})\s+points?\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d{1,5})\s*$", re.IGNORECASE)
_PLAYERS = re.compile(r"^\s*([^:\s][^:]*?)?\s*:\s*(\d{1,5})\s+([^:\s][^:]*?)?\s*:\s*(\d{1,5})\s*$")
_NUMBERED = re.compile(r"^\s*(\d{1,5})\)(.*)$")
_ENTRY = re.compile(
    r"(?P<dice>\d\d):"
    r"|Doubles\s*=>\s*(?P<double>\d{1,7})"
    r"|Beavers\s*=>\s*(?P<beaver>\d{1,7})"
    r"|(?P<take>Takes)\b"
    r"|(?P<drop>Drops)\b"
    r"|Wins\s+(?P<wins>\d{1,7})\s+points?\b(?P<match>\s+and\s+the\s+match)?"
    r"|Losses\s+(?P<losses>\d{1,7})\s+points?\b")

_VARIATIONS = {
    "backgammon": Variant.STANDARD, "standard": Variant.STANDARD, "standard backgammon": Variant.STANDARD,
    "nackgammon": Variant.NACKGAMMON,
    "hypergammon": Variant.HYPER, "hypergammon3": Variant.HYPER, "hyper backgammon": Variant.HYPER,
    "hyper-backgammon": Variant.HYPER, "hypergammon (3)": Variant.HYPER,
}
_ON_OFF = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}


# --------------------------------------------------------------------------- reading
def read_mat(text: str, source: str = "<match>", variant: Variant | str | None = None) -> MatchRecord:
    """Read a ``.mat`` record. ``source`` names it in messages; ``variant`` overrides the header.

    Raises :class:`RecordError` (``SOURCE:LINE: reason``) on the first line
    that is not part of the format.
    """
    return _Reader(text, source).read(None if variant is None else Variant(variant))


class _Reader:
    def __init__(self, text: str, source: str):
        self.source = source
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if len(self.lines) > 1 and not self.lines[-1]:
            self.lines.pop()                     # the final line end does not open another line
        self.headers: list[tuple[str, str, int]] = []
        self.games: list[GameRecord] = []
        self.players: tuple[str, str] | None = None

    def fail(self, line: int, reason: str) -> RecordError:
        return RecordError(self.source, line, reason)

    def read(self, variant: Variant | None) -> MatchRecord:
        length, length_line, index = self._read_preamble()
        rules = self._rules(length, length_line, variant)
        game: _GameBuilder | None = None
        while index < len(self.lines):
            number = index + 1
            line = self._line(index)
            index += 1
            if not line.strip():
                continue
            if line.lstrip().startswith(";"):
                continue
            m = _GAME.match(line)
            if m:
                if game is not None:
                    self.games.append(game.finish())
                game, index = self._start_game(int(m.group(1)), number, index)
                continue
            if game is None:
                raise self.fail(number, f"expected ' Game {len(self.games) + 1}', found {_quote(line)}")
            game.add_line(number, line)
        if game is not None:
            self.games.append(game.finish())
        if not self.games:
            raise self.fail(len(self.lines), "the record has no games (no ' Game 1' line)")
        return MatchRecord(self.players, rules, tuple(self.games),
                           tuple((k, v) for k, v, _ in self.headers), length_line, self.source)

    def _line(self, index: int) -> str:
        line = self.lines[index]
        if len(line) > MAX_LINE:
            raise self.fail(index + 1, f"line is {len(line)} characters long; a .mat line is far shorter")
        if _CONTROL.search(line):
            raise self.fail(index + 1, "line holds control characters: this is not a .mat text")
        return line.expandtabs(8).rstrip()

    def _read_preamble(self) -> tuple[int, int, int]:
        for index in range(len(self.lines)):
            number = index + 1
            line = self._line(index)
            if not line.strip():
                continue
            if line.lstrip().startswith(";"):
                m = _HEADER.match(line.strip())
                if m:
                    self.headers.append((m.group(1), m.group(2), number))
                continue
            m = _LENGTH.match(line)
            if m:
                return int(m.group(1)), number, index + 1
            raise self.fail(number, f"expected the match length line (e.g. '5 point match'), found {_quote(line)}")
        raise self.fail(max(1, len(self.lines)), "no match length line (e.g. '5 point match'): not a .mat record")

    def _rules(self, length: int, length_line: int, variant: Variant | None) -> MatchRules:
        crawford, jacoby, cube_limit, header_variant = True, False, DEFAULT_CUBE_LIMIT, Variant.STANDARD
        for key, value, number in self.headers:
            k, v = key.strip().lower(), value.strip().lower()
            if k == "crawford":
                if v not in _ON_OFF:
                    raise self.fail(number, f'Crawford "{value}" is neither "On" nor "Off"')
                crawford = _ON_OFF[v]
            elif k == "jacoby":
                if v not in _ON_OFF:
                    raise self.fail(number, f'Jacoby "{value}" is neither "On" nor "Off"')
                jacoby = _ON_OFF[v]
            elif k == "cubelimit":
                if not v.isdigit() or int(v) < 1 or int(v) & (int(v) - 1):
                    raise self.fail(number, f'CubeLimit "{value}" is not a power of two')
                cube_limit = int(v)
            elif k in ("variation", "variant"):
                if v not in _VARIATIONS:
                    raise self.fail(number, f'{key} "{value}" is not a variant bgref plays '
                                            f"(standard backgammon, Nackgammon, Hypergammon)")
                header_variant = _VARIATIONS[v]
        money = length == 0
        try:
            return MatchRules(length=length, crawford=crawford and not money, jacoby=jacoby and money,
                              beaver=money, raccoon=money, max_cube=cube_limit,
                              variant=variant or header_variant)
        except ValueError as err:
            raise self.fail(length_line, str(err)) from None

    def _start_game(self, number: int, line: int, index: int) -> tuple[_GameBuilder, int]:
        expected = len(self.games) + 1
        if number != expected:
            raise self.fail(line, f"Game {number} where Game {expected} was expected")
        while index < len(self.lines) and not self._line(index).strip():
            index += 1
        if index >= len(self.lines):
            raise self.fail(line, f"Game {number} ends before its player line ('name : score  name : score')")
        text = self._line(index)
        m = _PLAYERS.match(text)
        if not m:
            raise self.fail(index + 1, f"expected the player line of game {number} "
                                       f"('name : score  name : score'), found {_quote(text)}")
        players = (m.group(1) or "", m.group(3) or "")
        if self.players is None:
            self.players = players
        elif players != self.players:
            raise self.fail(index + 1, f"players {players[0]} and {players[1]} differ from game 1's "
                                       f"{self.players[0]} and {self.players[1]}")
        score = (int(m.group(2)), int(m.group(4)))
        return _GameBuilder(self, number, line, score, index + 1), index + 1


class _GameBuilder:
    def __init__(self, reader: _Reader, number: int, line: int, score: tuple[int, int], score_line: int):
        self.reader = reader
        self.number = number
        self.line = line
        self.score = score
        self.score_line = score_line
        self.turns: list[Turn] = []
        self.result: Result | None = None
        self.move_number = 0

    def fail(self, line: int, reason: str) -> RecordError:
        where = f"game {self.number}, move {self.move_number}" if self.move_number else f"game {self.number}"
        return self.reader.fail(line, f"{where}: {reason}")

    def add_line(self, number: int, line: str) -> None:
        m = _NUMBERED.match(line)
        if m:
            self.move_number = int(m.group(1))
            body, offset = m.group(2), m.start(2)
        else:
            body, offset = line, 0
        entries = self._entries(number, body, offset)
        if not entries:                 # a move number alone (Studio ends its files so)
            return
        if len(entries) > 2:
            raise self.fail(number, f"{len(entries)} entries on one line; a line holds at most two "
                                    f"(the left player's and the right player's)")
        if len(entries) == 2:
            sides = (WHITE, BLACK)
        else:
            sides = (BLACK if entries[0][0] >= RIGHT_COLUMN else WHITE,)
        for side, (_, match, rest) in zip(sides, entries):
            self._add(number, side, match, rest)

    def _entries(self, number: int, body: str, offset: int) -> list[tuple[int, re.Match, str]]:
        """Entries as ``(column, keyword match, text after a dice keyword)``."""
        found = list(_ENTRY.finditer(body))
        entries = []
        position = 0
        for i, match in enumerate(found):
            gap = body[position:match.start()]
            if gap.strip():
                raise self.fail(number, f"cannot read {_quote(gap.strip())}")
            end = found[i + 1].start() if i + 1 < len(found) else len(body)
            if match.group("dice"):
                rest, position = body[match.end():end], end
            else:
                rest, position = "", match.end()
            entries.append((offset + match.start(), match, rest.strip()))
        tail = body[position:]
        if tail.strip():
            raise self.fail(number, f"cannot read {_quote(tail.strip())}")
        return entries

    def _add(self, number: int, side: Side, match: re.Match, rest: str) -> None:
        if self.result is not None:
            raise self.fail(number, f"{match.group(0).strip()} after the game's result "
                                    f"(line {self.result.line})")
        base = dict(line=number, number=self.move_number, side=side)
        if match.group("dice"):
            self.turns.append(self._roll(number, match.group("dice"), rest, base))
        elif match.group("double"):
            self.turns.append(Turn(action=Action.DOUBLE, value=int(match.group("double")), **base))
        elif match.group("beaver"):
            self.turns.append(Turn(action=Action.BEAVER, value=int(match.group("beaver")), **base))
        elif match.group("take"):
            self.turns.append(Turn(action=Action.TAKE, **base))
        elif match.group("drop"):
            self.turns.append(Turn(action=Action.DROP, **base))
        elif match.group("losses"):
            self.turns.append(Turn(action=Action.RESIGN, value=int(match.group("losses")), **base))
        else:
            self.result = Result(number, side, int(match.group("wins")), bool(match.group("match")))

    def _roll(self, number: int, written: str, text: str, base: dict) -> Turn:
        dice = (int(written[0]), int(written[1]))
        if not all(1 <= d <= 6 for d in dice):
            raise self.fail(number, f"{written} is not a roll: each die shows 1 to 6")
        if text == "????":
            return Turn(action=Action.ROLL, dice=dice, text=text, unplayed=True, **base)
        try:
            play = parse_play(text)
        except InvalidPlayError as err:
            raise self.fail(number, f"{written}: {text} is not a play: {err}") from None
        return Turn(action=Action.ROLL, dice=dice, play=play, text=text, **base)

    def finish(self) -> GameRecord:
        return GameRecord(self.number, self.line, self.score, self.score_line, tuple(self.turns), self.result)


# --------------------------------------------------------------------------- writing
LEFT_WIDTH = 27
"""The left player's entry is padded to this width and followed by a space: the right entry starts at column 33."""

NAME_WIDTH = 32
"""The right player's name starts at this column of the player line."""


def write_mat(match: CheckedMatch) -> str:
    """The match in GNU Backgammon's own ``.mat`` dialect (section 9 of MAT_FORMAT.md).

    ``match`` must be valid (see :func:`engine.records.validate.check_match`):
    hits are marked from the replayed positions and results carry their full
    value. Headers are kept in order; ``Losses`` entries, which gnubg does not
    write, become part of the ``Wins`` line that follows them.
    """
    if match.error is not None:
        raise ValueError(f"cannot write a record that is not valid: {match.error}")
    record = match.record
    out = [f'; [{key} "{value}"]' for key, value in _headers(record)]
    if out:
        out.append("")
    out += [f" {record.length} point match", ""]
    for game in match.games:
        out += _write_game(record.players, game)
    return "\n".join(out) + "\n"


_VARIATION_NAMES = {Variant.STANDARD: "Backgammon", Variant.NACKGAMMON: "NackGammon",
                    Variant.HYPER: "HyperGammon (3)"}


def _headers(record: MatchRecord) -> list[tuple[str, str]]:
    """The record's headers, with the rule headers made to state the rules in force.

    A rule header that disagrees with the rules (a ``--variant`` given on the
    command line) is rewritten; one that is missing is added when the rule
    differs from what a reader assumes without it.
    """
    rules = record.rules
    stated = {
        "crawford": ("Crawford", "On" if rules.crawford else "Off", lambda v: _ON_OFF.get(v) == rules.crawford,
                     bool(rules.length) and not rules.crawford),
        "cubelimit": ("CubeLimit", str(rules.max_cube), lambda v: v == str(rules.max_cube),
                      rules.max_cube != DEFAULT_CUBE_LIMIT),
        "variation": ("Variation", _VARIATION_NAMES[rules.variant], lambda v: _VARIATIONS.get(v) == rules.variant,
                      rules.variant is not Variant.STANDARD),
        "jacoby": ("Jacoby", "On" if rules.jacoby else "Off", lambda v: _ON_OFF.get(v) == rules.jacoby,
                   rules.jacoby),
    }
    if rules.length:
        del stated["jacoby"]
    else:
        del stated["crawford"]
    out, seen = [], set()
    for key, value in record.headers:
        k = "variation" if key.strip().lower() == "variant" else key.strip().lower()
        if k in stated:
            seen.add(k)
            name, canonical, agrees, _ = stated[k]
            out.append((key, value if agrees(value.strip().lower()) else canonical))
        else:
            out.append((key, value))
    out += [(name, canonical) for k, (name, canonical, _, needed) in stated.items() if needed and k not in seen]
    return out


def _entry(checked: CheckedTurn) -> str | None:
    turn = checked.turn
    if turn.action is Action.ROLL:
        if checked.play is None:
            return None
        # Steps from the highest point down (always a legal order); a hit is
        # marked on the first step landing on the hit point, as gnubg does.
        steps = sorted(checked.play.steps, key=lambda s: (-s.frm, -s.to))
        hits = {s.to for s in steps if s.hit}
        parts = [f"{max(turn.dice)}{min(turn.dice)}:"]
        for s in steps:
            parts.append(f"{s.frm}/{s.to}{'*' if s.to in hits else ''}")
            hits.discard(s.to)
        return " ".join(parts) + (" " if len(steps) < 4 else "")
    return {Action.DOUBLE: f" Doubles => {turn.value}", Action.BEAVER: f" Beavers => {turn.value}",
            Action.TAKE: " Takes", Action.DROP: " Drops"}.get(turn.action)


def _write_game(players: tuple[str, str], game: CheckedGame) -> list[str]:
    out = [f" Game {game.record.number}",
           f" {players[0]} : {game.score[0]}".ljust(NAME_WIDTH) + f"{players[1]} : {game.score[1]}"]
    lines: list[list] = []        # [left, right] per move line
    for checked in game.turns:
        text = _entry(checked)
        if text is None:
            continue
        if checked.turn.side == WHITE or not lines or lines[-1][1] is not None:
            lines.append([None, None])
        lines[-1][checked.turn.side] = text
    result = None
    if game.outcome is not None:
        points = game.outcome.points
        result = f" Wins {points} point{'s' if points != 1 else ''}"
        if game.outcome.winner == BLACK and lines and lines[-1][1] is None:
            lines[-1][1], result = result + " ", None
    for number, (left, right) in enumerate(lines, start=1):
        out.append(f"{number:3d}) " + (left or "").ljust(LEFT_WIDTH) + " " + (right or ""))
    if result is not None:
        out.append(" " * (5 if game.outcome.winner == WHITE else 6 + LEFT_WIDTH) + result)
    out.append("")
    return out


def _quote(text: str, limit: int = 60) -> str:
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "...")


__all__ = ["read_mat", "write_mat", "MAX_LINE", "RIGHT_COLUMN", "DEFAULT_CUBE_LIMIT"]
