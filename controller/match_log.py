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
- ``play``: ``side``, ``play`` (notation), ``position`` (Position ID, White on roll)
- ``accepted``: an illegal play accepted as it stands: ``side``, ``play``, ``position``
- ``double``, ``take``, ``drop``, ``beaver``, ``raccoon``: ``side``
- ``resign``: ``side``, ``kind`` (1 single, 2 gammon, 3 backgammon);
  ``resign_accept``, ``resign_refuse``: ``side``
- ``undo``: the last play is taken back (its roll stays)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from engine.match import Game, Kind, Match, MatchRules, Outcome, Phase
from engine.position import WHITE, Position, Side


def side_of(name: str) -> Side:
    try:
        return Side[name.upper()]
    except KeyError:
        raise ValueError(f"{name!r} is not a side (white or black)") from None


def side_name(side: Side) -> str:
    return str(side)


@dataclass
class Turn:
    """One entry of a game record: a roll and its play, or a cube action."""

    side: Side
    dice: tuple[int, int] | None = None
    play: str = ""
    cube: str = ""          # "double", "take", "drop", "beaver", "raccoon"
    value: int = 0          # the cube value offered by a double or redouble


@dataclass
class GameRecord:
    score: tuple[int, int]
    crawford: bool
    turns: list[Turn] = field(default_factory=list)
    outcome: Outcome | None = None


class MatchLog:
    """Fold events into the match state; refuses an event that does not apply."""

    def __init__(self, players: tuple[str, str] = ("White", "Black"), rules: MatchRules | None = None):
        self.players = players
        self.rules = rules or MatchRules()
        self.match = Match(self.rules)
        self.games: list[GameRecord] = []
        self.events: list[dict] = [self.match_event()]
        self._before_play: list[tuple[Match, int]] = []

    @classmethod
    def from_events(cls, events: list[dict]) -> MatchLog:
        if not events or events[0].get("type") != "match":
            raise ValueError("a match log starts with a 'match' event")
        first = events[0]
        log = cls(tuple(first["players"]), MatchRules(**first["rules"]))
        for number, event in enumerate(events[1:], start=2):
            try:
                log.apply(event)
            except (ValueError, KeyError, TypeError) as err:
                raise ValueError(f"event {number} ({event.get('type')}): {err}") from None
        return log

    def match_event(self) -> dict:
        rules = asdict(self.rules)
        rules["variant"] = str(self.rules.variant)
        return {"type": "match", "players": list(self.players), "rules": rules}

    # ------------------------------------------------------------------ views
    @property
    def game(self) -> Game | None:
        return self.match.game

    @property
    def position(self) -> Position:
        return self.game.position if self.game else Position.initial(self.rules.variant)

    def record(self) -> GameRecord:
        return self.games[-1]

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
        self.games.append(GameRecord(self.match.score, self.match.game.crawford))
        self._before_play.clear()

    def _on_opening(self, event: dict) -> None:
        game = self.game.opening_roll(int(event["white"]), int(event["black"]))
        self._set(game)
        if game.phase is Phase.MOVE:
            self.record().turns.append(Turn(game.turn, game.dice))

    def _on_roll(self, event: dict) -> None:
        side = side_of(event["side"])
        game = self.game.roll(side, tuple(event["dice"]))
        self._set(game)
        self.record().turns.append(Turn(side, game.dice))

    def _play(self, event: dict, accepted: bool) -> None:
        side = side_of(event["side"])
        if self.game.turn != side or self.game.phase is not Phase.MOVE:
            raise ValueError(f"{side} cannot play now")
        self._before_play.append((self.match, len(self.record().turns)))
        after = Position.from_position_id(event["position"], WHITE, self.rules.variant)
        game = self.game.accept_as_played(after) if accepted else self.game.play(event["play"])
        if game.position != after:
            raise ValueError(f"play {event['play']!r} does not lead to {event['position']}")
        self.record().turns[-1].play = event["play"]
        self._set(game)

    def _on_play(self, event: dict) -> None:
        self._play(event, accepted=False)

    def _on_accepted(self, event: dict) -> None:
        self._play(event, accepted=True)

    def _on_undo(self, event: dict) -> None:
        if not self._before_play:
            raise ValueError("there is no play to take back in this game")
        match, turns = self._before_play.pop()
        record = self.record()
        del record.turns[turns:]
        record.turns[-1].play = ""
        record.outcome = None
        self.match = match

    def _cube(self, event: dict, action: str) -> None:
        side = side_of(event["side"])
        game = getattr(self.game, action)(side)
        turn = Turn(side, cube=action, value=game.offer if action in ("double", "beaver", "raccoon") else 0)
        self.record().turns.append(turn)
        self._set(game)

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
