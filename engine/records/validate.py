"""Replay a recorded match with the engine and judge every entry of it.

Every play must be legal for its roll (a ``*`` that is written must be a real
hit; missing ones are computed), a dance must be forced, every cube action
allowed at that moment (never in the Crawford game, only by the player with
access, before rolling), every result consistent with the final position and
the cube (single, gammon, backgammon, a dropped double, a resignation), and
every score line with the results before it. The first problem is reported
as a :class:`~engine.records.model.RecordError` at its line, in the engine's
words, e.g. ``m.mat:118: game 3, move 14, 61: 13/7 8/7 is illegal: point 7 is closed``.

A match-winning result may be written capped at the points the winner still
needed when it says ``and the match`` (Backgammon Galaxy does this); the
checked outcome always carries the full value, as GNU Backgammon records it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.match import ActionRefused, EndReason, Game, Kind, Match, Outcome, Phase
from engine.moves import IllegalPlayError, InvalidPlayError, Play, check_play
from engine.position import Position, Side
from engine.records.model import Action, GameRecord, MatchRecord, RecordError, Result, Turn


@dataclass(frozen=True, slots=True)
class CheckedTurn:
    """A turn the engine accepted: for a played roll, ``play`` holds its steps (hits found).

    ``play`` is ``None`` for dice that were never played. A take the file
    leaves out after a beaver appears as a ``TAKE`` turn on the roll's line.
    """

    turn: Turn
    position: Position
    play: Play | None = None


@dataclass(frozen=True)
class CheckedGame:
    record: GameRecord
    crawford: bool
    turns: tuple[CheckedTurn, ...]
    outcome: Outcome | None
    score: tuple[int, int]


@dataclass(frozen=True)
class CheckedMatch:
    """The games the engine accepted, and the first problem (``error``) if the record has one."""

    record: MatchRecord
    games: tuple[CheckedGame, ...]
    score: tuple[int, int]
    error: RecordError | None = None

    @property
    def valid(self) -> bool:
        return self.error is None

    @property
    def results(self) -> list[tuple[Side, int]]:
        """``(winner, points)`` of each finished game, points at full value."""
        return [(g.outcome.winner, g.outcome.points) for g in self.games if g.outcome is not None]

    def count(self, action: Action) -> int:
        """How many entries of this kind the accepted games hold; rolls count played or danced turns only."""
        return sum(1 for g in self.games for t in g.turns
                   if t.turn.action is action and (action is not Action.ROLL or t.play is not None))

    @property
    def turns(self) -> int:
        return self.count(Action.ROLL)

    def transcript(self) -> tuple:
        """The match independent of how it was written, for comparing two records of it.

        Per game: the score before it, whether it is the Crawford game, each
        action as ``(player, action, dice high first, position after)`` and
        the outcome. ``Losses`` entries and dice never played are left out:
        the outcome already says how the game ended.
        """
        return tuple(
            (g.score, g.crawford,
             tuple((t.turn.side, t.turn.action.value, tuple(sorted(t.turn.dice, reverse=True)) if t.turn.dice else (),
                    t.position)
                   for t in g.turns
                   if t.turn.action is not Action.RESIGN and not (t.turn.action is Action.ROLL and t.play is None)),
             g.outcome)
            for g in self.games)


def validate(record: MatchRecord) -> CheckedMatch:
    """Replay ``record``; the result's ``error`` is the first problem found (``None`` if valid)."""
    return _Replay(record).run()


def check_match(record: MatchRecord) -> CheckedMatch:
    """Replay ``record`` and raise its first problem as :class:`RecordError`."""
    checked = validate(record)
    if checked.error is not None:
        raise checked.error
    return checked


def _name(side: Side) -> str:
    return "White" if side == Side.WHITE else "Black"


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _describe(outcome: Outcome) -> str:
    kind = {Kind.SINGLE: "a single game", Kind.GAMMON: "a gammon", Kind.BACKGAMMON: "a backgammon"}[outcome.kind]
    how = {EndReason.BORNE_OFF: f"won {kind}", EndReason.DROPPED: "won by a dropped double",
           EndReason.RESIGNED: f"won by the resignation of {kind}"}[outcome.reason]
    return f"{how} with the cube at {outcome.cube}, worth {_points(outcome.points)}"


class _Replay:
    def __init__(self, record: MatchRecord):
        self.record = record
        self.match = Match(record.rules)
        self.games: list[CheckedGame] = []

    def run(self) -> CheckedMatch:
        try:
            for number, game in enumerate(self.record.games):
                if number and self.games[-1].outcome is None:
                    previous = self.record.games[number - 1]
                    raise self._fail(game.line, f"game {previous.number} has no result but game {game.number} "
                                                f"follows it")
                self._game(game)
        except RecordError as err:
            return CheckedMatch(self.record, tuple(self.games), self.match.score, err)
        return CheckedMatch(self.record, tuple(self.games), self.match.score)

    def _fail(self, line: int, reason: str, rule=None) -> RecordError:
        return self.record.error(line, reason, rule)

    def _who(self, side: Side) -> str:
        return f"{self.record.players[side]} ({_name(side)})"

    def _game(self, record: GameRecord) -> None:
        try:
            self.match = self.match.new_game()
        except ActionRefused as err:
            raise self._fail(record.line, f"game {record.number} cannot be played: {err}") from None
        if record.score != self.match.score:
            names = self.record.players
            raise self._fail(record.score_line, (
                f"game {record.number}: the score {names[0]} {record.score[0]}, {names[1]} {record.score[1]} "
                f"does not follow from the results before it ({self.match.score[0]}-{self.match.score[1]})"))
        game = self.match.game
        checked: list[CheckedTurn] = []
        for turn in record.turns:
            game = self._turn(record, game, turn, checked)
        if record.result is not None:
            game = self._result(record, game, record.result)
        elif game.phase is Phase.OVER:
            last = record.turns[-1]
            raise self._fail(last.line, f"game {record.number} is over ({self._who(game.outcome.winner)} "
                                        f"{_describe(game.outcome)}) but the record gives no 'Wins' line")
        elif game.phase is Phase.RESIGNING:
            last = record.turns[-1]
            raise self._fail(last.line, f"game {record.number}: the resignation is never answered")
        score = self.match.score
        self.match = self.match.with_game(game)
        self.games.append(CheckedGame(record, game.crawford, tuple(checked), game.outcome, score))

    # ------------------------------------------------------------------ turns
    def _turn(self, record: GameRecord, game: Game, turn: Turn, checked: list[CheckedTurn]) -> Game:
        where = f"game {record.number}, move {turn.number}"
        side = turn.side
        if turn.action is Action.ROLL:
            return self._roll(where, game, turn, checked)
        what = turn.describe()
        try:
            if turn.action is Action.DOUBLE:
                game = game.double(side)
            elif turn.action is Action.BEAVER:
                game = game.raccoon(side) if game.phase is Phase.DOUBLED and game.redoubles == 1 else game.beaver(side)
            elif turn.action is Action.TAKE:
                game = game.take(side)
            elif turn.action is Action.DROP:
                game = game.drop(side)
            else:
                game = game.resign(side, self._resigned_kind(f"{where}, {self._who(side)}: {what}", game,
                                                             turn.value, side, turn.line))
        except ActionRefused as err:
            raise self._fail(turn.line, f"{where}, {self._who(side)}: {what} is not allowed: {err}") from None
        if turn.action in (Action.DOUBLE, Action.BEAVER) and turn.value != game.offer:
            cube = game.offer // 2
            raise self._fail(turn.line, f"{where}, {self._who(side)}: {what} is wrong: the cube is at {cube}, "
                                        f"so it offers {game.offer}")
        checked.append(CheckedTurn(turn, game.position))
        return game

    def _roll(self, where: str, game: Game, turn: Turn, checked: list[CheckedTurn]) -> Game:
        side = turn.side
        dice = turn.dice
        written = f"{dice[0]}{dice[1]}"
        if game.phase is Phase.OVER:
            if (not turn.play and not turn.unplayed and side != game.outcome.winner
                    and game.outcome.reason is EndReason.BORNE_OFF):
                # Some exporters write the loser's next roll after the last checker is off.
                checked.append(CheckedTurn(turn, game.position))
                return game
            raise self._fail(turn.line, f"{where}, {written}: the game is already over "
                                        f"({self._who(game.outcome.winner)} {_describe(game.outcome)})")
        implied = False
        try:
            if game.phase is Phase.OPENING:
                if dice[0] == dice[1]:
                    raise self._fail(turn.line, f"{where}, {written}: the opening roll cannot be a doublet "
                                                f"(equal dice are rolled again)")
                high, low = max(dice), min(dice)
                game = game.opening_roll(high, low) if side == Side.WHITE else game.opening_roll(low, high)
            else:
                if game.phase is Phase.DOUBLED and game.redoubles and side == game.answerer:
                    game = game.take(side)
                    implied = True
                game = game.roll(side, dice)
        except ActionRefused as err:
            raise self._fail(turn.line, f"{where}, {self._who(side)}: {written} is not allowed: {err}") from None
        if implied:            # gnubg leaves out the take of a beaver: the roll that follows makes it
            checked.append(CheckedTurn(Turn(turn.line, turn.number, side, Action.TAKE), game.position))
        if turn.unplayed:
            checked.append(CheckedTurn(turn, game.position))
            return game
        try:
            legal = check_play(game.position, side, game.dice, turn.play)
        except (IllegalPlayError, InvalidPlayError) as err:
            text = turn.text or "(no play)"
            raise self._fail(turn.line, f"{where}, {written}: {text} is illegal: {err}", err.rule) from None
        # The play is checked: carry on from its position without generating the plays again.
        game = game.accept_as_played(legal.position)
        checked.append(CheckedTurn(turn, legal.position, legal.play))
        return game

    # ------------------------------------------------------------------ results
    def _needed(self, side: Side) -> int | None:
        """Points ``side`` still needs to win the match (``None`` in a money session)."""
        if not self.record.length:
            return None
        return max(self.record.length - self.match.score[side], 0)

    def _resigned_kind(self, what: str, game: Game, value: int, resigner: Side, line: int) -> Kind:
        """The resignation a written value stands for.

        A value below a kind's worth that still wins the match stands for the
        smallest kind worth at least that much (Galaxy caps match-winning points).
        """
        for kind in Kind:
            if game.value(kind) == value:
                return kind
        needed = self._needed(resigner.opponent)
        if needed is not None and value >= needed:
            for kind in Kind:
                if game.value(kind) > value:
                    return kind
        worths = ", ".join(str(game.value(k)) for k in Kind)
        raise self._fail(line, f"{what} is wrong: with the cube at {game.cube} a resignation is worth {worths}")

    def _result(self, record: GameRecord, game: Game, result: Result) -> Game:
        where = f"game {record.number}"
        side = result.winner
        what = result.describe()
        try:
            if game.phase is Phase.RESIGNING:
                game = game.accept_resignation(side)
            elif game.phase is not Phase.OVER:
                loser = side.opponent
                kind = self._resigned_kind(f"{where}: {what}", game, result.points, loser, result.line)
                game = game.resign(loser, kind)
                game = game.accept_resignation(side)
        except ActionRefused as err:
            raise self._fail(result.line, f"{where}: {what} for {self._who(side)} is not allowed: {err}") from None
        outcome = game.outcome
        if outcome.winner != side:
            raise self._fail(result.line, f"{where}: {what} is credited to {self._who(side)}, but "
                                          f"{self._who(outcome.winner)} {_describe(outcome)}")
        needed = self._needed(side)
        capped = needed is not None and result.and_the_match and needed <= result.points < outcome.points
        if result.points != outcome.points and not capped:
            raise self._fail(result.line, f"{where}: {what} is wrong: {self._who(side)} {_describe(outcome)}")
        if result.and_the_match and needed is None:
            raise self._fail(result.line, f"{where}: {what} is wrong: a money session has no match to win")
        if result.and_the_match and outcome.points < needed:
            raise self._fail(result.line, f"{where}: {what} is wrong: {self._who(side)} still needs {_points(needed)}")
        return game


__all__ = ["CheckedTurn", "CheckedGame", "CheckedMatch", "validate", "check_match"]
