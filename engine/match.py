"""Cube, game and match: who may do what, and what a game is worth.

A :class:`Game` is one game's state: the position, the cube, whose turn it is and
what that player must do next. A :class:`Match` strings games together with the
score, the Crawford game and the end of the match (or a money session, with
``length == 0``). Every state is immutable: an action returns the next state or
raises :class:`ActionRefused` with the rule that forbids it.

>>> g = Game.start(MatchRules(length=5)).opening_roll(5, 2)
>>> g.turn, g.phase
(<Side.WHITE: 0>, <Phase.MOVE: 'move'>)
>>> g.why_no_double(WHITE)
'White cannot double after rolling'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum

from engine.ids import GameState, MatchId, Resignation
from engine.moves import LegalPlay, check_dice, check_play, legal_plays
from engine.position import WHITE, Position, Side, Variant


class ActionRefused(ValueError):
    """An action taken at the wrong time or by the wrong player; the message says why."""


class Phase(str, Enum):
    OPENING = "opening"          # each player rolls one die to decide who starts
    ROLL = "roll"                # the player on turn may double, then rolls
    DOUBLED = "doubled"          # a double (or beaver, raccoon) awaits its answer
    MOVE = "move"                # dice are rolled; the play is awaited
    RESIGNING = "resigning"      # a resignation awaits its answer
    OVER = "over"


class Kind(IntEnum):
    """What a won game is worth, as a multiple of the cube."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


class EndReason(str, Enum):
    BORNE_OFF = "borne off"
    DROPPED = "dropped"
    RESIGNED = "resigned"


@dataclass(frozen=True)
class MatchRules:
    """The settings of a match or money session.

    ``length`` 0 is a money session. Jacoby, beavers, raccoons and automatic
    doubles are money-play options; ``auto_doubles`` is how many equal opening
    rolls may turn the cube (0 = off). ``max_cube`` is the highest cube value.
    """

    length: int = 0
    crawford: bool = True
    jacoby: bool = False
    beaver: bool = False
    raccoon: bool = False
    auto_doubles: int = 0
    max_cube: int = 64
    variant: Variant = Variant.STANDARD

    def __post_init__(self) -> None:
        if self.length < 0:
            raise ValueError(f"match length {self.length} is negative")
        money_only = [name for name, on in (("Jacoby", self.jacoby), ("beavers", self.beaver),
                                            ("raccoons", self.raccoon), ("automatic doubles", self.auto_doubles))
                      if on]
        if self.length and money_only:
            raise ValueError(f"{', '.join(money_only)} apply only to money play, not a {self.length}-point match")
        if self.raccoon and not self.beaver:
            raise ValueError("raccoons need beavers to be allowed")
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1):
            raise ValueError(f"maximum cube {self.max_cube} is not a power of two")
        object.__setattr__(self, "variant", Variant(self.variant))

    @property
    def money(self) -> bool:
        return self.length == 0


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won, how, and the points it is worth."""

    winner: Side
    points: int
    kind: Kind
    reason: EndReason
    cube: int

    def __str__(self) -> str:
        how = {EndReason.DROPPED: "double dropped", EndReason.RESIGNED: f"resigned {self.kind.name.lower()}",
               EndReason.BORNE_OFF: self.kind.name.lower()}[self.reason]
        return f"{self.winner} wins {self.points} point{'s' if self.points != 1 else ''} ({how})"


def _name(side: Side) -> str:
    return str(side).capitalize()


@dataclass(frozen=True)
class Game:
    """One game: position, cube and turn procedure.

    ``turn`` is the player whose turn it is (``None`` before the opening roll).
    While a double is pending, ``offer`` is the value offered, ``answerer`` who
    must answer and ``keeper`` who will own the cube if it is taken.
    """

    rules: MatchRules
    position: Position
    crawford: bool = False
    cube: int = 1
    owner: Side | None = None
    turn: Side | None = None
    phase: Phase = Phase.OPENING
    dice: tuple[int, int] | None = None
    offer: int = 0
    answerer: Side | None = None
    keeper: Side | None = None
    redoubles: int = 0
    resignation: tuple[Side, Kind] | None = None
    resumed: Phase | None = None
    cube_turned: bool = False
    auto_doubles: int = 0
    outcome: Outcome | None = None
    plays: int = field(default=0, compare=False)

    @classmethod
    def start(cls, rules: MatchRules, crawford: bool = False, position: Position | None = None) -> Game:
        return cls(rules, position or Position.initial(rules.variant), crawford=crawford)

    # ------------------------------------------------------------------ starting
    def opening_roll(self, white_die: int, black_die: int) -> Game:
        """Each player rolls one die; the higher starts with both numbers.

        Equal dice are rolled again; with automatic doubles on, each tie also
        turns the cube up one step (it stays centred) up to the limit.
        """
        self._expect(Phase.OPENING, "roll for the opening")
        check_dice((white_die, black_die))
        if white_die == black_die:
            if self.auto_doubles < self.rules.auto_doubles and self.cube * 2 <= self.rules.max_cube:
                return replace(self, cube=self.cube * 2, auto_doubles=self.auto_doubles + 1)
            return self
        starter = WHITE if white_die > black_die else Side.BLACK
        return replace(self, turn=starter, phase=Phase.MOVE,
                       dice=(max(white_die, black_die), min(white_die, black_die)))

    # ------------------------------------------------------------------ cube
    def why_no_double(self, side: Side) -> str | None:
        """Why ``side`` may not double now, or ``None`` if it may."""
        who = _name(side)
        if self.phase is Phase.OVER:
            return "the game is over"
        if self.phase is Phase.OPENING:
            return f"{who} cannot double before the opening roll"
        if self.turn != side:
            return f"{who} can double only at the start of their own turn"
        if self.phase is Phase.MOVE:
            return f"{who} cannot double after rolling"
        if self.phase is Phase.DOUBLED:
            return "a double is already offered"
        if self.phase is Phase.RESIGNING:
            return "a resignation awaits its answer"
        if self.crawford:
            return "nobody may double in the Crawford game"
        if self.owner is not None and self.owner != side:
            return f"{who} cannot double: {_name(self.owner)} owns the cube"
        if self.cube * 2 > self.rules.max_cube:
            return f"the cube is already at its maximum of {self.cube}"
        return None

    def double(self, side: Side) -> Game:
        reason = self.why_no_double(side)
        if reason:
            raise ActionRefused(reason)
        return replace(self, phase=Phase.DOUBLED, offer=self.cube * 2, answerer=side.opponent,
                       keeper=side.opponent, redoubles=0)

    def _expect_answer(self, side: Side, what: str) -> None:
        if self.phase is not Phase.DOUBLED:
            raise ActionRefused(f"{_name(side)} cannot {what}: no double is offered")
        if side != self.answerer:
            raise ActionRefused(f"{_name(side)} cannot {what}: {_name(self.answerer)} must answer the double")

    def take(self, side: Side) -> Game:
        self._expect_answer(side, "take")
        return replace(self, phase=Phase.ROLL, cube=self.offer, owner=self.keeper, offer=0,
                       answerer=None, keeper=None, redoubles=0, cube_turned=True)

    def drop(self, side: Side) -> Game:
        """Refuse the double: the game ends for the value before it."""
        self._expect_answer(side, "drop")
        points = self.offer // 2
        return self._end(Outcome(side.opponent, points, Kind.SINGLE, EndReason.DROPPED, points))

    def beaver(self, side: Side) -> Game:
        """The player just doubled redoubles at once and keeps the cube (money play option)."""
        self._expect_answer(side, "beaver")
        if not self.rules.beaver:
            raise ActionRefused("beavers are not allowed in this match")
        limit = 1 if not self.rules.raccoon else 2
        if self.redoubles >= limit:
            raise ActionRefused("no further redouble is allowed" if self.redoubles == 1 and not self.rules.raccoon
                                else "only one beaver and one raccoon are allowed")
        if self.offer * 2 > self.rules.max_cube:
            raise ActionRefused(f"the cube cannot go past {self.rules.max_cube}")
        return replace(self, offer=self.offer * 2, answerer=side.opponent, keeper=side,
                       redoubles=self.redoubles + 1)

    def raccoon(self, side: Side) -> Game:
        """The original doubler redoubles a beaver at once (money play option, off by default)."""
        if self.phase is Phase.DOUBLED and self.redoubles != 1:
            raise ActionRefused(f"{_name(side)} cannot raccoon: no beaver was made")
        if not self.rules.raccoon:
            raise ActionRefused("raccoons are not allowed in this match")
        return self.beaver(side)

    # ------------------------------------------------------------------ turns
    def roll(self, side: Side, dice: tuple[int, int]) -> Game:
        d = check_dice(tuple(dice))
        if self.phase is Phase.DOUBLED:
            raise ActionRefused(f"{_name(side)} cannot roll: the double must be answered first")
        if self.turn != side:
            raise ActionRefused(f"{_name(side)} cannot roll: it is {_name(self.turn)}'s turn"
                                if self.turn is not None else "the opening roll decides who starts")
        self._expect(Phase.ROLL, "roll")
        return replace(self, phase=Phase.MOVE, dice=d)

    def legal(self) -> list[LegalPlay]:
        """The legal plays for the dice rolled."""
        self._expect(Phase.MOVE, "play")
        return legal_plays(self.position, self.turn, self.dice)

    def checked_play(self, play) -> LegalPlay:
        """The legal play that ``play`` (notation or segments) is with the rolled dice, or why it is not."""
        self._expect(Phase.MOVE, "play")
        return check_play(self.position, self.turn, self.dice, play)

    def play(self, play) -> Game:
        """Play written notation (or segments) with the rolled dice; the turn then passes."""
        return self._after_play(self.checked_play(play).position)

    def accept_as_played(self, position: Position) -> Game:
        """The opponent accepts an illegal play as it stands (rules of a physical table)."""
        self._expect(Phase.MOVE, "play")
        return self._after_play(position)

    def _after_play(self, position: Position) -> Game:
        game = replace(self, position=position, plays=self.plays + 1)
        if position.winner() is not None:
            return game._end(game._borne_off_outcome())
        return replace(game, phase=Phase.ROLL, turn=self.turn.opponent, dice=None)

    def _borne_off_outcome(self) -> Outcome:
        winner = self.position.winner()
        loser = winner.opponent
        kind = Kind.SINGLE
        if self.position.off(loser) == 0:
            kind = Kind.GAMMON
            behind = self.position.bar(loser) + sum(self.position.side(loser)[19:25])
            if behind:
                kind = Kind.BACKGAMMON
        return Outcome(winner, self.value(kind), kind, EndReason.BORNE_OFF, self.cube)

    def value(self, kind: Kind) -> int:
        """Points a win of this kind is worth now (cube, and the Jacoby rule)."""
        if self.rules.jacoby and not self.cube_turned:
            kind = Kind.SINGLE
        return self.cube * int(kind)

    # ------------------------------------------------------------------ resignations
    def resign(self, side: Side, kind: Kind) -> Game:
        """Offer to resign a single game, a gammon or a backgammon."""
        if self.phase in (Phase.OVER, Phase.OPENING):
            raise ActionRefused(f"{_name(side)} cannot resign: no game is being played")
        if self.phase is Phase.RESIGNING:
            raise ActionRefused("a resignation already awaits its answer")
        if self.phase is Phase.DOUBLED:
            raise ActionRefused(f"{_name(side)} cannot resign: the double must be answered first")
        return replace(self, resignation=(side, Kind(kind)), resumed=self.phase, phase=Phase.RESIGNING)

    def _expect_resignation(self, side: Side, what: str) -> tuple[Side, Kind]:
        if self.phase is not Phase.RESIGNING or self.resignation is None:
            raise ActionRefused(f"{_name(side)} cannot {what}: no resignation is offered")
        resigner, kind = self.resignation
        if side == resigner:
            raise ActionRefused(f"{_name(side)} cannot {what} their own resignation")
        return resigner, kind

    def accept_resignation(self, side: Side) -> Game:
        resigner, kind = self._expect_resignation(side, "accept")
        return self._end(Outcome(resigner.opponent, self.value(kind), kind, EndReason.RESIGNED, self.cube))

    def refuse_resignation(self, side: Side) -> Game:
        self._expect_resignation(side, "refuse")
        return replace(self, phase=self.resumed, resignation=None, resumed=None)

    # ------------------------------------------------------------------ helpers
    def _end(self, outcome: Outcome) -> Game:
        return replace(self, phase=Phase.OVER, outcome=outcome, offer=0, answerer=None, keeper=None,
                       resignation=None, resumed=None)

    def _expect(self, phase: Phase, what: str) -> None:
        if self.phase is phase:
            return
        who = _name(self.turn) if self.turn is not None else "Nobody"
        reasons = {
            Phase.OPENING: "the opening roll has not been made",
            Phase.ROLL: f"{who} has not rolled yet",
            Phase.DOUBLED: "a double awaits its answer",
            Phase.MOVE: f"{who} has already rolled",
            Phase.RESIGNING: "a resignation awaits its answer",
            Phase.OVER: "the game is over",
        }
        raise ActionRefused(f"cannot {what}: {reasons[self.phase]}")


@dataclass(frozen=True)
class Match:
    """A match to ``rules.length`` points (or a money session) and its current game.

    ``score`` is (White, Black). The Crawford game is the one game right after a
    player first reaches ``length - 1``; later games are post-Crawford.
    """

    rules: MatchRules
    score: tuple[int, int] = (0, 0)
    game: Game | None = None
    games: tuple[Outcome, ...] = ()
    crawford_played: bool = False

    @property
    def over(self) -> bool:
        return bool(self.rules.length) and max(self.score) >= self.rules.length

    @property
    def winner(self) -> Side | None:
        if not self.over:
            return None
        return WHITE if self.score[0] >= self.rules.length else Side.BLACK

    @property
    def post_crawford(self) -> bool:
        return self.crawford_played and not (self.game is not None and self.game.crawford)

    def is_crawford_next(self) -> bool:
        """True when the next game is the Crawford game (never in a one-point match, where nobody reaches 0)."""
        n = self.rules.length
        return n > 1 and self.rules.crawford and not self.crawford_played and n - 1 in self.score

    def new_game(self, position: Position | None = None) -> Match:
        if self.over:
            raise ActionRefused(f"the match is over: {_name(self.winner)} won {self.score[0]}-{self.score[1]}")
        if self.game is not None and self.game.phase is not Phase.OVER:
            raise ActionRefused("the current game is not over")
        crawford = self.is_crawford_next()
        return replace(self, game=Game.start(self.rules, crawford, position),
                       crawford_played=self.crawford_played or crawford)

    def with_game(self, game: Game) -> Match:
        """Carry on with the game's next state; a finished game is scored."""
        if game.phase is Phase.OVER and game.outcome is not None and (
                self.game is None or self.game.phase is not Phase.OVER):
            score = list(self.score)
            score[game.outcome.winner] += game.outcome.points
            return replace(self, game=game, score=(score[0], score[1]), games=self.games + (game.outcome,))
        return replace(self, game=game)

    def match_id(self) -> str:
        """The GNU Backgammon Match ID of the current state."""
        g = self.game
        if g is None:
            return MatchId(match_length=self.rules.length, score=self.score, game_state=GameState.NONE).encode()
        state = GameState.PLAYING
        if g.phase is Phase.OVER and g.outcome is not None:
            state = {EndReason.BORNE_OFF: GameState.OVER, EndReason.DROPPED: GameState.DROPPED,
                     EndReason.RESIGNED: GameState.RESIGNED}[g.outcome.reason]
        on_roll = g.turn if g.turn is not None else WHITE
        deciding = on_roll
        if g.phase is Phase.DOUBLED and g.answerer is not None:
            deciding = g.answerer
        elif g.phase is Phase.RESIGNING and g.resignation is not None:
            deciding = g.resignation[0].opponent
        return MatchId(
            cube_value=g.cube, cube_owner=g.owner, on_roll=on_roll, crawford=g.crawford, game_state=state,
            turn=deciding, double_offered=g.phase is Phase.DOUBLED,
            resignation=Resignation(int(g.resignation[1])) if g.resignation else Resignation.NONE,
            dice=g.dice if g.dice and g.phase is Phase.MOVE else (0, 0),
            match_length=self.rules.length, score=self.score,
        ).encode()


__all__ = ["ActionRefused", "Phase", "Kind", "EndReason", "MatchRules", "Outcome", "Game", "Match"]
