"""The accepted events of a match and the match state they add up to.

The referee decides; what it decides is an *event* (a small dict, journaled
before it is signalled). Folding the events in order with :class:`MatchLog`
gives the engine's :class:`~engine.match.Match` and, per game, the turns as a
match file records them. Restarting after a crash is folding the journal.

Events (``side`` is ``"white"`` or ``"black"``, ``t`` the time in seconds):

- ``match``: ``players``, ``rules`` (MatchRules fields), first event only
- ``game``: a new game is set up
- ``opening``: ``white``, ``black`` (one die each; ties too, for auto-doubles)
- ``roll``: ``side``, ``dice``
- ``dice``: ``side``, ``dice``: the dice of the roll not yet played, corrected (misread)
- ``play``: ``side``, ``play`` (notation), ``position`` (Position ID, White on roll)
- ``accepted``: an illegal play accepted as it stands: ``side``, ``play``, ``position``
- ``double``, ``take``, ``drop``, ``beaver``, ``raccoon``: ``side``
- ``resign``: ``side``, ``kind`` (1 single, 2 gammon, 3 backgammon);
  ``resign_accept``, ``resign_refuse``: ``side``
- ``undo``: the last play is taken back (its roll stays)
- ``end``: a money session is over (between games)

A ``roll``, ``dice`` or ``play`` the players picked on MENU (the camera could not
settle it) carries ``chosen``: true.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from engine.match import ActionRefused, Game, Kind, Match, MatchRules, Outcome, Phase
from engine.moves import IllegalPlayError, Play, Step, segments_between
from engine.position import WHITE, Position, Side
from engine.records.model import Action, GameRecord, MatchRecord, Result, Turn
from engine.records.validate import CheckedGame, CheckedMatch, CheckedTurn


def side_of(name: str) -> Side:
    try:
        return Side[name.upper()]
    except KeyError:
        raise ValueError(f"{name!r} is not a side (white or black)") from None


def side_name(side: Side) -> str:
    return str(side)


@dataclass
class GameLog:
    """One game as recorded so far: the score before it and each turn with the position after it."""

    number: int
    score: tuple[int, int]
    crawford: bool
    turns: list[CheckedTurn] = field(default_factory=list)
    outcome: Outcome | None = None


def accepted_play(before: Position, after: Position, side: Side) -> Play:
    """The checker movement of a play accepted as it stands, one step per checker moved.

    Whatever the opponent's checkers did is left out; a board on which checkers
    appeared or vanished gives the empty play (the position itself is recorded).
    """
    opponent = before.side(side.opponent)
    try:
        segments = segments_between(before, after, side, strict=False)[0]
    except IllegalPlayError:
        return Play(())
    return Play(tuple(Step(s.frm, s.to, bool(s.to and opponent[25 - s.to] == 1)) for s in segments))


class MatchLog:
    """Fold events into the match state; refuses an event that does not apply."""

    def __init__(self, players: tuple[str, str] = ("White", "Black"), rules: MatchRules | None = None,
                 date: str = ""):
        self.players = players
        self.rules = rules or MatchRules()
        self.date = date
        self.match = Match(self.rules)
        self.ended = False
        self.games: list[GameLog] = []
        self.events: list[dict] = [self.match_event()]
        self._before_play: list[tuple[Match, int, Match | None]] = []
        self._before_roll: Match | None = None  # the match before the roll being played (to correct its dice)

    @classmethod
    def from_events(cls, events: list[dict]) -> MatchLog:
        if not events or events[0].get("type") != "match":
            raise ValueError("a match log starts with a 'match' event")
        first = events[0]
        log = cls(tuple(first["players"]), MatchRules(**first["rules"]), first.get("date", ""))
        for number, event in enumerate(events[1:], start=2):
            try:
                log.apply(event)
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"event {number} ({event.get('type')}): {err}") from None
        return log

    def match_event(self) -> dict:
        rules = asdict(self.rules)
        rules["variant"] = str(self.rules.variant)
        return {"type": "match", "players": list(self.players), "rules": rules, "date": self.date}

    # ------------------------------------------------------------------ views
    @property
    def game(self) -> Game | None:
        return self.match.game

    @property
    def finished(self) -> bool:
        """The match is won, or the money session was ended."""
        return self.match.over or self.ended

    @property
    def position(self) -> Position:
        return self.game.position if self.game else Position.initial(self.rules.variant)

    @property
    def dice_correctable(self) -> bool:
        """The roll being played may have its dice corrected (not an opening roll, not played)."""
        return self._before_roll is not None and self.game is not None and self.game.phase is Phase.MOVE

    def record(self) -> GameLog:
        return self.games[-1]

    def checked(self) -> CheckedMatch:
        """The match so far as a checked record, ready for the match file writers."""
        headers = [("Site", "bgref"), ("Player 1", self.players[0]), ("Player 2", self.players[1])]
        if self.date:
            headers.append(("EventDate", self.date))
        headers.append(("Crawford", "On" if self.rules.crawford else "Off"))
        records, games = [], []
        for g in self.games:
            result = None if g.outcome is None else Result(0, g.outcome.winner, g.outcome.points)
            record = GameRecord(g.number, 0, g.score, 0, tuple(c.turn for c in g.turns), result)
            records.append(record)
            games.append(CheckedGame(record, g.crawford, tuple(g.turns), g.outcome, g.score))
        match = MatchRecord(self.players, self.rules, tuple(records), tuple(headers))
        return CheckedMatch(match, tuple(games), self.match.score)

    # ------------------------------------------------------------------ folding
    def apply(self, event: dict) -> None:
        kind = event["type"]
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ValueError(f"unknown event type {kind!r}")
        handler(event)
        self.events.append(event)

    def _set(self, game: Game) -> None:
        self.match = self.match.with_game(game)
        if game.phase is Phase.OVER:
            self.record().outcome = game.outcome

    def _on_game(self, event: dict) -> None:
        self.match = self.match.new_game()
        self.games.append(GameLog(len(self.games) + 1, self.match.score, self.match.game.crawford))
        self._before_play.clear()
        self._before_roll = None

    def _on_opening(self, event: dict) -> None:
        game = self.game.opening_roll(int(event["white"]), int(event["black"]))
        self._set(game)
        if game.phase is Phase.MOVE:
            self._add(Turn(0, 0, game.turn, Action.ROLL, game.dice), game)

    def _on_roll(self, event: dict) -> None:
        side = side_of(event["side"])
        before = self.match
        game = self.game.roll(side, tuple(event["dice"]))
        self._set(game)
        self._add(Turn(0, 0, side, Action.ROLL, game.dice), game)
        self._before_roll = before

    def _on_dice(self, event: dict) -> None:
        """The dice of the roll not yet played, corrected (the camera misread them)."""
        side = side_of(event["side"])
        game = self.game
        if self._before_roll is None or game is None or game.phase is not Phase.MOVE or game.turn != side:
            raise ValueError(f"{side} has no roll to correct")
        game = self._before_roll.game.roll(side, tuple(event["dice"]))
        self.match = self._before_roll.with_game(game)
        record = self.record()
        record.turns[-1] = replace(record.turns[-1], turn=replace(record.turns[-1].turn, dice=game.dice))

    def _play(self, event: dict, accepted: bool) -> None:
        side = side_of(event["side"])
        if self.game.turn != side or self.game.phase is not Phase.MOVE:
            raise ValueError(f"{side} cannot play now")
        self._before_play.append((self.match, len(self.record().turns), self._before_roll))
        self._before_roll = None
        before = self.game.position
        after = Position.from_position_id(event["position"], WHITE, self.rules.variant)
        if accepted:
            game, play = self.game.accept_as_played(after), accepted_play(before, after, side)
        else:
            lp = self.game.checked_play(event["play"])
            game, play = self.game.accept_as_played(lp.position), lp.play
        if game.position != after:
            raise ValueError(f"play {event['play']!r} does not lead to {event['position']}")
        turns = self.record().turns
        turns[-1] = replace(turns[-1], turn=replace(turns[-1].turn, text=event["play"]), position=after, play=play)
        self._set(game)

    def _on_play(self, event: dict) -> None:
        self._play(event, accepted=False)

    def _on_accepted(self, event: dict) -> None:
        self._play(event, accepted=True)

    def _on_end(self, event: dict) -> None:
        if not self.rules.money:
            raise ActionRefused("only a money session is ended by the players; a match ends when it is won")
        if self.game is not None and self.game.phase is not Phase.OVER:
            raise ActionRefused("the session can end only between games")
        self.ended = True

    def _on_undo(self, event: dict) -> None:
        if not self._before_play:
            raise ValueError("there is no play to take back in this game")
        match, turns, self._before_roll = self._before_play.pop()
        record = self.record()
        del record.turns[turns:]
        roll = record.turns[-1]
        record.turns[-1] = replace(roll, turn=replace(roll.turn, text=""), play=None, position=match.game.position)
        record.outcome = None
        self.match = match

    def _cube(self, event: dict, action: str) -> None:
        side = side_of(event["side"])
        game = getattr(self.game, action)(side)
        kind = {"double": Action.DOUBLE, "take": Action.TAKE, "drop": Action.DROP,
                "beaver": Action.BEAVER, "raccoon": Action.BEAVER}[action]
        self._add(Turn(0, 0, side, kind, value=game.offer if kind in (Action.DOUBLE, Action.BEAVER) else 0), game)
        self._set(game)

    def _add(self, turn: Turn, game: Game) -> None:
        """A new entry; a roll's play and position are filled in when it is played."""
        self.record().turns.append(CheckedTurn(turn, game.position, None))

    def _on_double(self, event: dict) -> None:
        self._cube(event, "double")

    def _on_take(self, event: dict) -> None:
        self._cube(event, "take")

    def _on_drop(self, event: dict) -> None:
        self._cube(event, "drop")

    def _on_beaver(self, event: dict) -> None:
        self._cube(event, "beaver")

    def _on_raccoon(self, event: dict) -> None:
        self._cube(event, "raccoon")

    def _on_resign(self, event: dict) -> None:
        self._set(self.game.resign(side_of(event["side"]), Kind(int(event["kind"]))))

    def _on_resign_accept(self, event: dict) -> None:
        self._set(self.game.accept_resignation(side_of(event["side"])))

    def _on_resign_refuse(self, event: dict) -> None:
        self._set(self.game.refuse_resignation(side_of(event["side"])))
