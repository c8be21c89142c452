"""The referee: the rules of procedure at a physical table, as a state machine.

It is fed vision observations and button presses, each with the time as a
value, and answers with *events* (accepted match events, to be journaled before
anything else happens; see :mod:`controller.match_log`) and *signals* (what the
LEDs, the buzzer and the display unit must show). It never guesses: a hidden or
unclear board makes it wait, and after a while ask the players to clear the view.

The procedure it follows (``RULES.md``):

- the opening roll: one die each, each in its owner's right-hand half; equal
  dice are rolled again (turning the cube when automatic doubles are on);
- a roll counts when both dice lie flat in the roller's right-hand half, on no
  checker; otherwise both dice are rolled again, unless the players see that the
  camera misjudged them and press ACCEPT (the roll, or the opening roll with one die
  in each half, stands as read);
- the turn ends when the player picks up the dice; the position then on the
  board is judged against every position the roll allows; a roll made by the
  opponent before that is void;
- an illegal play is signalled (rule and points) until it is corrected, or the
  opponent accepts it (ACCEPT, or by rolling or doubling);
- a play the camera cannot settle (or misreads as illegal) the players may pick
  on MENU among the legal plays nearest to the read;
- UNDO, confirmed by the opponent with ACCEPT, takes back the last play;
- doubles and takes are seen on the cube; drops, beavers and resignations are
  answered on the MENU button (MENU cycles, ACCEPT chooses, UNDO closes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engine.match import ActionRefused, Kind, Phase
from engine.moves import BAR, OFF, IllegalPlayError, LegalPlay, Rule, explain_result, legal_plays
from engine.position import BLACK, WHITE, Position, Side
from engine.records.model import Action

from controller.clock import ClockRules, remaining
from controller.match_log import MatchLog, accepted_play, side_name

HALVES = ("white", "black")
CHOICES = 4  # legal plays MENU offers, nearest first, when the camera cannot settle a play
SURE_DIE = 0.6  # a die read less sure than this beside two surer ones is no die (a checker's ring read as one)


class Button(str, Enum):
    ACCEPT = "accept"
    UNDO = "undo"
    MENU = "menu"


@dataclass(frozen=True)
class Press:
    """A button pressed at time ``t`` (seconds)."""

    button: Button
    t: float


# ---------------------------------------------------------------------------- signals
@dataclass(frozen=True)
class Lights:
    """The table LEDs: whose turn it is, the green ok and the red illegal light."""

    turn: Side | None
    ok: bool
    illegal: bool


@dataclass(frozen=True)
class Beep:
    kind: str  # "illegal", "roll-again", "attention"


@dataclass(frozen=True)
class Display:
    """The lines the display unit shows (the whole text, replacing what was there)."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Scoreboard:
    """Match state for the display: score, length, Crawford, cube, clock (White, Black, running side)."""

    score: tuple[int, int]
    length: int
    crawford: bool
    post_crawford: bool
    cube: int
    owner: Side | None
    clock: tuple[float, float, str | None] | None


@dataclass(frozen=True)
class PointLights:
    """Point LEDs to light: label ("1".."24" from White's ace point, "bar", "off-white", ...) -> colour."""

    points: dict[str, str]
    blink: bool = True


@dataclass(frozen=True)
class RecordChanged:
    """A turn or a game ended: the match files should be written again."""


@dataclass(frozen=True)
class RecalibrateRequested:
    """The players asked (MENU) for the camera to be calibrated again."""


@dataclass(frozen=True)
class NewMatchRequested:
    """The match or session is finished and the players asked (MENU) for a new one."""


@dataclass
class Decision:
    """What one input produced: events to journal first, then signals to show."""

    events: list[dict] = field(default_factory=list)
    signals: list = field(default_factory=list)


@dataclass(frozen=True)
class Timing:
    """How long the referee waits before asking the players for help (seconds)."""

    clear_view_after: float = 8.0
    unclear_read_after: float = 4.0
    menu_timeout: float = 20.0
    undo_timeout: float = 20.0
    confirm_frames: int = 2  # consecutive settled frames that must read the same before anything is decided
    roll_confirm_frames: int = 4  # for a roll or a cube action: the reading must hold longer (no latency is at stake)


# ---------------------------------------------------------------------------- helpers
def absolute_point(side: Side, point: int) -> str:
    """A point in the mover's numbering as the label of the board's LED strip."""
    if point == BAR:
        return "bar"
    if point == OFF:
        return f"off-{side_name(side)}"
    return str(point if side == WHITE else 25 - point)


def _reading(obs, dice_reading: tuple) -> tuple:
    """What a decision depends on in an observation whose dice read ``dice_reading``; equal
    readings of two frames confirm each other."""
    return (tuple((p.color, tuple(p.count_range)) for p in obs.points),
            tuple(sorted(tuple(v) for v in obs.bar.values())), tuple(sorted(tuple(v) for v in obs.off.values())),
            dice_reading,
            None if obs.cube is None else (obs.cube.value, obs.cube.side))


def _dice_seen(dice) -> tuple:
    """The dice a frame shows: all read, but those read unsure (under ``SURE_DIE``) when two
    sure ones lie beside them. A pair is thrown; a third die is a player's mistake and
    reads as sure as the others, while a checker's ring now and then reads as an unsure,
    leaning die: taken as one, it would call a good roll faulty."""
    sure = [d for d in dice if d.confidence >= SURE_DIE]
    return tuple(sure) if len(sure) >= 2 else tuple(dice)


def _dice_reading(dice) -> tuple:
    """What a roll depends on in a frame's dice; equal in consecutive frames, they confirm each other."""
    return tuple(sorted((d.value, d.half or "", d.flat, d.on_checker) for d in dice))  # "": off the board


def _die_fault(die, roller_halves: tuple[str, ...]) -> str | None:
    if die.half is None:
        return "a die landed off the playing surface"
    if die.half not in roller_halves:
        return "a die landed in the wrong half"
    if not die.flat:
        return "a die is cocked"
    if die.on_checker:
        return "a die landed on a checker"
    return None


@dataclass(frozen=True)
class RollAndPlay:
    """A roll the camera missed or misread, and a legal play of it that explains the board."""

    dice: tuple[int, int]
    play: LegalPlay


MenuAction = dict | str | LegalPlay | RollAndPlay  # an event, a command, or a play the players pick


# ---------------------------------------------------------------------------- the referee
class Referee:
    """The state machine. ``feed(observation)`` or ``feed(Press(...))``, each returning a :class:`Decision`."""

    def __init__(self, log: MatchLog, timing: Timing = Timing(), clock: ClockRules | None = None):
        self.log = log
        self.timing = timing
        self.clock_rules = clock
        self.need_clear: set[str] = set(HALVES)
        self.roll_fault: str | None = None
        # the dice of a roll called faulty, should it stand (of the opening roll: White's, Black's)
        self.faulty_roll: tuple[int, int] | None = None
        self.illegal: IllegalPlayError | None = None
        self.illegal_position: Position | None = None
        self.choices: list[LegalPlay] = []  # the legal plays MENU offers when the camera cannot settle the play
        self.other_rolls: list[RollAndPlay] = []  # MENU offers them when the roll was missed or misread
        self.unsettled_since: float | None = None
        self.unclear_since: float | None = None
        self.asked_clear = False
        self.asked_to_pick = False  # the players were asked to clear the view or pick the play on MENU
        self.menu: list[tuple[str, MenuAction]] | None = None
        self.menu_index = 0
        self.menu_at = 0.0
        self.undo_asked_at: float | None = None
        self.void_half: str | None = None
        self.picked_up = False
        self.dice_down = False  # after a restart, the dice must be seen down again before a pick-up counts
        self.last_t = 0.0
        self._lights: Lights | None = None
        self._reading = None
        self._agreeing = 0
        self._examined = None
        self._dice_reading = None
        self._dice_agreeing = 0

    # ------------------------------------------------------------------ state views
    @property
    def game(self):
        return self.log.game

    def roll_halves(self) -> tuple[str, ...]:
        """Where the dice of the current roll lie: both halves for the opening roll."""
        g = self.game
        if g is not None and g.phase is Phase.MOVE and g.plays == 0 and self._opening_turn():
            return HALVES
        if g is not None and g.turn is not None:
            return (side_name(g.turn),)
        return HALVES

    def _opening_turn(self) -> bool:
        record = self.log.record() if self.log.games else None
        return bool(record and len(record.turns) == 1 and record.turns[0].turn.action is Action.ROLL)

    # ------------------------------------------------------------------ entry point
    def feed(self, item, t: float | None = None) -> Decision:
        decision = Decision()
        now = item.t if isinstance(item, Press) else (t if t is not None else getattr(item, "timestamp", 0.0))
        self.last_t = now
        if isinstance(item, Press):
            self._on_press(item, decision)
        else:
            self._on_observation(item, now, decision)
        self._refresh(decision)
        return decision

    def start(self, t: float = 0.0) -> Decision:
        """Signals that show the state as it is (at start-up or after a restart)."""
        decision = Decision()
        self._lights = None
        self._show_state(decision, self._status_text())
        self._refresh(decision)
        return decision

    # ------------------------------------------------------------------ accepting events
    def _accept(self, event: dict, decision: Decision) -> None:
        event = {**event, "t": round(self.last_t, 3)}
        self.log.apply(event)
        decision.events.append(event)

    # ------------------------------------------------------------------ observations
    def _on_observation(self, obs, now: float, d: Decision) -> None:
        visible = obs.board_visible
        dice = _dice_seen(obs.dice)
        dice_reading = _dice_reading(dice) if visible else None
        self._dice_agreeing = self._dice_agreeing + 1 if dice_reading == self._dice_reading else 1
        self._dice_reading = dice_reading
        if not visible or not obs.settled:
            if self.unsettled_since is None:
                self.unsettled_since = now
            elif now - self.unsettled_since >= self.timing.clear_view_after and not self.asked_clear:
                self.asked_clear = True
                what = "the camera cannot see the board" if not visible else "the board is hidden"
                d.signals.append(Beep("attention"))
                d.signals.append(Display(("Please clear the view:", what)))
            if visible and obs.occlusion.motion and not obs.occlusion.hand:
                self._note(obs, dice_reading)  # changed since the last frame, nothing over it: it may confirm the next
            return
        if self.asked_clear:
            self._show_state(d, self._status_text())
        self.unsettled_since = None
        self.asked_clear = False
        if self.menu is not None and now - self.menu_at > self.timing.menu_timeout:
            self.menu = None
            self._show_state(d, self._status_text())
        if self.undo_asked_at is not None and now - self.undo_asked_at > self.timing.undo_timeout:
            self.undo_asked_at = None
            self._show_state(d, self._status_text())
        self.need_clear &= {die.half for die in dice}
        self._note(obs, dice_reading)
        if self._agreeing < self.timing.confirm_frames:
            return
        game = self.game
        if game is None or game.phase is Phase.OVER:
            self._between_games(obs, d)
            game = self.game
        if game is None or game.phase is Phase.OVER:
            return
        if game.phase is Phase.OPENING:
            self._opening(obs, dice, d)
        elif game.phase is Phase.ROLL:
            self._before_roll(obs, dice, d)
        elif game.phase is Phase.DOUBLED:
            self._doubled(obs, dice, d)
        elif game.phase is Phase.MOVE:
            self._moving(obs, dice, now, d)

    def _between_games(self, obs, d: Decision) -> None:
        if self.log.finished:
            return
        if obs.admits(Position.initial(self.log.rules.variant)):
            self._accept({"type": "game"}, d)
            self._show_state(d, self._status_text())

    def _roll_fault(self, dice, halves: tuple[str, ...]) -> str | None:
        for die in dice:
            fault = _die_fault(die, halves)
            if fault:
                return fault
        return None

    def _signal_roll_again(self, reason: str, d: Decision) -> None:
        if self.roll_fault == reason:
            return
        self.roll_fault = reason
        d.signals.append(Beep("roll-again"))
        self._show_state(d, f"Roll again: {reason}")

    def _dice_steady(self) -> bool:
        """The dice have read the same long enough to take a roll from them (frames with a hand
        over the board count, the decision is taken on a settled one; the checkers' reading
        may flicker meanwhile)."""
        return self._dice_agreeing >= self.timing.roll_confirm_frames

    def _note(self, obs, dice_reading: tuple) -> None:
        """Count the frames in a row that read the same."""
        reading = _reading(obs, dice_reading)
        self._agreeing = self._agreeing + 1 if reading == self._reading else 1
        self._reading = reading

    def _reading_is_new(self) -> bool:
        """Whether this reading is looked into for the first time (what was found in it is kept)."""
        if self._examined == self._reading:
            return False
        self._examined = self._reading
        return True

    def _steady(self) -> bool:
        """The reading has held long enough to take a roll or a cube action from it."""
        return self._agreeing >= self.timing.roll_confirm_frames

    def _opening(self, obs, dice, d: Decision) -> None:
        fresh = [die for die in dice if die.half not in self.need_clear]
        if not dice:
            self.roll_fault = self.faulty_roll = None
            return
        if self.need_clear or len(fresh) < 2 or not self._dice_steady():
            return
        if len(dice) != 2:
            self._signal_roll_again("one die each for the opening roll", d)
            self.need_clear = set(HALVES)
            return
        fault = self._roll_fault(dice, HALVES)
        values = {die.half: die.value for die in dice}
        if fault is None and set(values) != set(HALVES):
            fault = "each player's die must land in their own right-hand half"
        if fault:
            self._signal_roll_again(fault, d)
            self.need_clear = set(HALVES)
            # one die in each half: should the players see them lie flat, ACCEPT lets them stand
            self.faulty_roll = (values["white"], values["black"]) if set(values) == set(HALVES) else None
            return
        self._take_opening(values["white"], values["black"], d)

    def _take_opening(self, white: int, black: int, d: Decision, chosen: bool = False) -> None:
        """The opening roll, White's die and Black's: the higher starts, equal dice are rolled again."""
        self._accept({"type": "opening", "white": white, "black": black, **({"chosen": True} if chosen else {})}, d)
        self.roll_fault = self.faulty_roll = None
        self.need_clear = set()
        game = self.game
        if game.phase is Phase.OPENING:
            self.need_clear = set(HALVES)
            cube = f" (cube now {game.cube})" if game.cube > 1 else ""
            self._show_state(d, f"Equal dice: roll again{cube}")
            return
        self._after_roll(d)

    def _after_roll(self, d: Decision) -> None:
        self.picked_up, self.dice_down = False, True
        self.other_rolls, self._examined = [], None  # the board is looked into afresh for this roll
        game = self.game
        plays = legal_plays(game.position, game.turn, game.dice)
        who = side_name(game.turn).capitalize()
        if len(plays) == 1 and not plays[0].play:
            self._show_state(d, f"{who} rolled {game.dice[0]}{game.dice[1]}: no legal move")
        else:
            self._show_state(d, f"{who} rolled {game.dice[0]}{game.dice[1]}")

    def _before_roll(self, obs, dice, d: Decision) -> None:
        game = self.game
        roller = side_name(game.turn)
        if self._cube_offered(obs, game.turn, d):
            return
        fresh = [die for die in dice if die.half not in self.need_clear]
        if not dice:
            self.roll_fault = self.faulty_roll = None
            self.void_half = None
            self._unseen_roll(obs, d)
            return
        if not fresh:
            return
        if any(die.half == side_name(game.turn.opponent) for die in fresh) and \
                all(die.half != roller for die in fresh):
            self.need_clear.add(side_name(game.turn.opponent))
            self._signal_roll_again(f"it is {roller.capitalize()}'s turn to roll", d)
            return
        if len(dice) < 2 or not self._dice_steady():
            return
        fault = self._roll_fault(dice, (roller,))
        if fault or len(dice) != 2:
            self._signal_roll_again(fault or "roll two dice", d)
            self.need_clear = {die.half for die in dice if die.half}
            self.faulty_roll = (dice[0].value, dice[1].value) if len(dice) == 2 else None
            return
        self.roll_fault = self.faulty_roll = None
        self._accept({"type": "roll", "side": roller, "dice": [dice[0].value, dice[1].value]}, d)
        self._after_roll(d)

    def _let_the_roll_stand(self, d: Decision) -> None:
        """ACCEPT after "roll again": the players agree the roll (or the opening roll) stands
        as read (the camera took a flat die for a cocked one, say)."""
        if self.game.phase is Phase.OPENING:
            self._take_opening(*self.faulty_roll, d, chosen=True)
            return
        dice, self.faulty_roll, self.roll_fault = self.faulty_roll, None, None
        self.need_clear = set()
        self._accept({"type": "roll", "side": side_name(self.game.turn), "dice": list(dice), "chosen": True}, d)
        self._after_roll(d)

    def _unseen_roll(self, obs, d: Decision) -> None:
        """Checkers moved while the referee waits for a roll it never saw (the dice thrown and
        picked up unseen): the players may pick the roll and its play on MENU among those
        that explain the board; nothing is taken without them. A board no roll explains
        (a misread) is left alone."""
        game = self.game
        if obs.admits(game.position):
            self.other_rolls = []
            return
        if not self._reading_is_new():
            return  # this reading was looked into already
        self.other_rolls = self._other_rolls(obs)
        if self.other_rolls and not self.asked_to_pick:
            self.asked_to_pick = True
            d.signals.append(Beep("attention"))
            who = side_name(game.turn).capitalize()
            self._show_state(d, f"{who}'s roll was not seen: pick the roll and play on MENU")

    def _other_rolls(self, obs, besides: tuple[int, int] | None = None, exact: bool = True) -> list[RollAndPlay]:
        """The rolls other than ``besides`` with the legal plays nearest to the board (only
        those that explain it when ``exact``), nearest first."""
        game = self.game
        found = []
        for high in range(1, 7):
            for low in range(1, high + 1):
                if besides is not None and sorted(besides) == [low, high]:
                    continue
                for lp in legal_plays(game.position, game.turn, (high, low)):
                    off = obs.misfit(lp.position)
                    if lp.play and (off == 0 or not exact):
                        found.append((off, obs.distance(lp.position), RollAndPlay((high, low), lp)))
        found.sort(key=lambda item: item[:2])
        return [roll for *_, roll in found[:CHOICES]]

    def _cube_offered(self, obs, side: Side, d: Decision) -> bool:
        """A cube turned to the next value before the roll is a double offered by ``side``."""
        cube = obs.cube
        game = self.game
        if cube is None or cube.value != game.cube * 2 or obs.dice:
            return False
        if not self._steady():
            return True
        reason = game.why_no_double(side)
        if reason:
            self._tell_once(f"No double: {reason}", d)
            return True
        self._accept({"type": "double", "side": side_name(side)}, d)
        self._show_state(d, f"{side_name(side).capitalize()} doubles to {game.cube * 2}")
        return True

    def _tell_once(self, text: str, d: Decision) -> None:
        if self.roll_fault != text:
            self.roll_fault = text
            d.signals.append(Beep("attention"))
            self._show_state(d, text)

    def _doubled(self, obs, dice, d: Decision) -> None:
        game = self.game
        cube = obs.cube
        taker = side_name(game.answerer)
        if not self._steady():
            return
        if cube is not None and cube.value == game.offer and cube.side == side_name(game.keeper) \
                and game.redoubles == 0:
            self._accept({"type": "take", "side": taker}, d)
            self._show_state(d, f"{taker.capitalize()} takes: cube {game.offer}")
            return
        doubler = side_name(game.answerer.opponent)
        if any(die.half == doubler for die in dice) and game.redoubles == 0:
            # the doubler rolling with the cube on the taker's side: the double was taken
            if cube is not None and cube.value == game.offer and cube.side == taker:
                self._accept({"type": "take", "side": taker}, d)
                self._before_roll(obs, dice, d)

    def _moving(self, obs, dice, now: float, d: Decision) -> None:
        game = self.game
        other = side_name(game.turn.opponent)
        if not self.picked_up:
            halves = self.roll_halves()
            if any(die.half in halves for die in dice):
                self.dice_down = True
                if len(halves) == 1 and any(die.half == other for die in dice) and self.void_half != other:
                    self.void_half = other
                    self.need_clear.add(other)
                    d.signals.append(Beep("roll-again"))
                    self._show_state(d, f"{other.capitalize()}'s roll is void: "
                                        f"{side_name(game.turn).capitalize()} has not finished")
                return
            if not self.dice_down:
                return
            self.picked_up = True
        opponent_dice = [die for die in dice if die.half == other and other not in self.need_clear]
        cube = obs.cube
        turned = cube is not None and cube.value == game.cube * 2 and self._steady()
        if self.illegal is not None and (opponent_dice or turned):
            self._accept_illegal(d)  # rolling or doubling accepts the play as it stands
        else:
            self._judge(obs, now, d)
        if self.game.phase is Phase.ROLL and (opponent_dice or turned):
            self._before_roll(obs, dice, d)

    def _judge(self, obs, now: float, d: Decision) -> None:
        """The dice are picked up: judge the board (again, while an illegal play is corrected)."""
        game = self.game
        plays = legal_plays(game.position, game.turn, game.dice)
        matches = [lp for lp in plays if obs.admits(lp.position)]
        if len(matches) == 1:
            self._play(matches[0], d)
            return
        if self._reading_is_new():
            self._offer_choices(obs, plays, matches)
        if matches:
            self._unclear(now, d, "several checkers cannot be told apart")
            return
        seen = obs.to_position(self.log.rules.variant)  # only a certain, complete reading
        if seen is None:
            self._unclear(now, d, "some checkers cannot be read")
            return
        try:
            explain_result(game.position, seen, game.turn, game.dice)
        except IllegalPlayError as err:
            self._signal_illegal(err, seen, d)

    def _offer_choices(self, obs, plays: list[LegalPlay], matches: list[LegalPlay]) -> None:
        """What MENU offers for a play the camera cannot settle: the plays the reading admits,
        else the legal plays nearest to it and, should the roll be misread, other rolls' plays."""
        nearest = sorted(matches or plays, key=lambda lp: (obs.misfit(lp.position), obs.distance(lp.position)))
        self.choices = nearest[:CHOICES]
        if not matches and self.log.dice_correctable:
            self.other_rolls = self._other_rolls(obs, besides=self.game.dice, exact=False)

    def _unclear(self, now: float, d: Decision, what: str) -> None:
        if self.unclear_since is None:
            self.unclear_since = now
        elif now - self.unclear_since >= self.timing.unclear_read_after and not self.asked_to_pick:
            self.asked_to_pick = True
            d.signals.append(Beep("attention"))
            d.signals.append(Display(("Please clear the view:", what, "or pick the play on MENU")))

    def _signal_illegal(self, err: IllegalPlayError, seen: Position, d: Decision) -> None:
        if self.illegal is not None and self.illegal_position == seen and str(self.illegal) == str(err):
            return
        self.illegal, self.illegal_position = err, seen
        side = self.game.turn
        d.signals.append(Beep("illegal"))
        d.signals.append(PointLights({absolute_point(side, p): "red" for p in err.points}))
        self._show_state(d, f"Illegal: {err}")

    def _play(self, lp: LegalPlay, d: Decision, chosen: bool = False) -> None:
        """Accept the legal play ``lp``: seen on the board, or ``chosen`` by the players on MENU."""
        game = self.game
        side = side_name(game.turn)
        self._accept({"type": "play", "side": side, "play": str(lp.play),
                      "position": lp.position.position_id(WHITE), **({"chosen": True} if chosen else {}),
                      **({"ends_game": True} if lp.position.winner() is not None else {})}, d)
        self._finish_turn(d, f"{side.capitalize()} played {lp.play or 'nothing (no legal move)'}")

    def _finish_turn(self, d: Decision, text: str) -> None:
        was_illegal = self.illegal is not None
        self.illegal = self.illegal_position = None
        self.choices = []
        self.other_rolls = []
        self.unclear_since = None
        self.asked_to_pick = False
        self.need_clear = {h for h in self.need_clear if h == self.void_half}
        self.void_half = None
        if was_illegal:
            d.signals.append(PointLights({}))
        d.signals.append(RecordChanged())
        game = self.game
        if game.phase is Phase.OVER:
            text = f"{game.outcome}. Score {self.log.match.score[0]}-{self.log.match.score[1]}"
            if self.log.match.over:
                text += f". {self.log.players[self.log.match.winner]} wins the match"
        self._show_state(d, text)

    def _accept_illegal(self, d: Decision) -> None:
        game = self.game
        side = game.turn
        position = self.illegal_position
        self._accept({"type": "accepted", "side": side_name(side),
                      "play": str(accepted_play(game.position, position, side)),
                      "position": position.position_id(WHITE),
                      **({"ends_game": True} if position.winner() is not None else {})}, d)
        self._finish_turn(d, f"{side_name(side.opponent).capitalize()} accepted the play as it stands")

    # ------------------------------------------------------------------ buttons
    def _on_press(self, press: Press, d: Decision) -> None:
        if press.button is Button.MENU:
            self._menu_next(press.t, d)
        elif press.button is Button.ACCEPT:
            if self.menu is not None:
                self._menu_choose(d)
            elif self.undo_asked_at is not None:
                self._undo(d)
            elif self.illegal is not None and self.game is not None and self.game.phase is Phase.MOVE:
                self._accept_illegal(d)
            elif self.faulty_roll is not None and self.game is not None and \
                    self.game.phase in (Phase.OPENING, Phase.ROLL):
                self._let_the_roll_stand(d)
            elif self.game is not None and self.game.phase is Phase.RESIGNING:
                self._apply_action({"type": "resign_accept",
                                    "side": side_name(self.game.resignation[0].opponent)}, d)
        elif press.button is Button.UNDO:
            if self.menu is not None:
                self.menu = None
                self._show_state(d, self._status_text())
            elif self._last_play_undoable():
                self.undo_asked_at = press.t
                d.signals.append(Beep("attention"))
                self._show_state(d, "Undo the last play? Opponent: press ACCEPT")
            else:
                self._show_state(d, "Nothing to undo")

    def _last_play_undoable(self) -> bool:
        if not self.log.events or self.log.events[-1]["type"] not in ("play", "accepted"):
            return False
        return self.game is not None and self.game.phase in (Phase.ROLL, Phase.OVER)

    def _undo(self, d: Decision) -> None:
        self.undo_asked_at = None
        if not self._last_play_undoable():
            return
        last = self.log.events[-1]
        self._accept({"type": "undo"}, d)
        self.picked_up, self.dice_down = False, False
        self._examined = None
        d.signals.append(RecordChanged())
        dice = self.game.dice
        self._show_state(d, f"Play {last['play'] or '(none)'} taken back: {last['side'].capitalize()}, "
                            f"put the checkers and the dice {dice[0]}{dice[1]} back and play again")

    def menu_items(self) -> list[tuple[str, MenuAction]]:
        """What MENU offers now: (label, event or command)."""
        game = self.game
        items: list[tuple[str, MenuAction]] = []
        if game is not None and game.phase is Phase.DOUBLED:
            answerer = side_name(game.answerer)
            items.append((f"{answerer.capitalize()} drops", {"type": "drop", "side": answerer}))
            items.append((f"{answerer.capitalize()} takes", {"type": "take", "side": answerer}))
            if self.log.rules.beaver and (game.redoubles == 0 or (game.redoubles == 1 and self.log.rules.raccoon)):
                kind = "beaver" if game.redoubles == 0 else "raccoon"
                items.append((f"{answerer.capitalize()} {kind}s", {"type": kind, "side": answerer}))
        elif game is not None and game.phase is Phase.RESIGNING:
            answerer = side_name(game.resignation[0].opponent)
            items.append((f"{answerer.capitalize()} accepts", {"type": "resign_accept", "side": answerer}))
            items.append((f"{answerer.capitalize()} refuses", {"type": "resign_refuse", "side": answerer}))
        elif game is not None and game.phase in (Phase.ROLL, Phase.MOVE):
            who = side_name(game.turn).capitalize()
            if game.phase is Phase.MOVE and self.picked_up:
                items += [(f"{who} played {lp.play or 'nothing'}", lp) for lp in self.choices]
            if game.phase is Phase.ROLL or (game.phase is Phase.MOVE and self.picked_up):
                items += [(f"{who} rolled {r.dice[0]}{r.dice[1]} and played {r.play.play}", r)
                          for r in self.other_rolls]
            if game.phase is Phase.ROLL and game.why_no_double(game.turn) is None:
                items.append((f"{side_name(game.turn).capitalize()} doubles",
                              {"type": "double", "side": side_name(game.turn)}))
            for side in (game.turn, game.turn.opponent):
                for kind in Kind:
                    items.append((f"{side_name(side).capitalize()} resigns {kind.name.lower()}",
                                  {"type": "resign", "side": side_name(side), "kind": int(kind)}))
        between = game is None or game.phase is Phase.OVER
        if between and self.log.rules.money and not self.log.finished and self.log.games:
            items.append(("End the session", {"type": "end"}))
        if self.log.finished:
            items.append(("Start a new match", "new-match"))
        items.append(("Calibrate the camera", "recalibrate"))
        return items

    def _menu_next(self, t: float, d: Decision) -> None:
        if self.menu is None:
            self.menu, self.menu_index = self.menu_items(), 0
        else:
            self.menu_index = (self.menu_index + 1) % len(self.menu)
        self.menu_at = t
        label = self.menu[self.menu_index][0]
        d.signals.append(Display(("MENU (ACCEPT chooses)", f"> {label}")))

    def _menu_choose(self, d: Decision) -> None:
        label, action = self.menu[self.menu_index]
        self.menu = None
        if action == "recalibrate":
            d.signals.append(RecalibrateRequested())
            self._show_state(d, "Calibrating the camera")
            return
        if action == "new-match":
            d.signals.append(NewMatchRequested())
            return
        if isinstance(action, LegalPlay):
            if self.game is not None and self.game.phase is Phase.MOVE and action in self.choices:
                self._play(action, d, chosen=True)
            return
        if isinstance(action, RollAndPlay):
            game = self.game
            if game is not None and game.phase in (Phase.ROLL, Phase.MOVE) and action in self.other_rolls:
                kind = "roll" if game.phase is Phase.ROLL else "dice"  # a roll missed, or misread
                self._accept({"type": kind, "side": side_name(game.turn), "dice": list(action.dice),
                              "chosen": True}, d)
                self._play(action.play, d, chosen=True)
            return
        self._apply_action(action, d)

    def _apply_action(self, event: dict, d: Decision) -> None:
        try:
            self._accept(event, d)
        except ActionRefused as err:
            d.signals.append(Beep("attention"))
            self._show_state(d, f"Refused: {err}")
            return
        game = self.game
        if game is not None and game.phase is Phase.OVER and event["type"] != "end":
            self._finish_turn(d, str(game.outcome))
        else:
            self._show_state(d, self._status_text())

    # ------------------------------------------------------------------ display
    def _status_text(self) -> str:
        game = self.game
        if self.log.match.over:
            return f"{self.log.players[self.log.match.winner]} wins the match"
        if self.log.finished:
            score = self.log.match.score
            return f"Session over: {self.log.players[0]} {score[0]}, {self.log.players[1]} {score[1]}"
        if game is None or game.phase is Phase.OVER:
            return "Set up the board for the next game" if self.log.games else "Set up the board to start"
        who = side_name(game.turn).capitalize() if game.turn is not None else ""
        return {
            Phase.OPENING: "Opening roll: one die each",
            Phase.ROLL: f"{who} to roll",
            Phase.DOUBLED: f"{side_name(game.answerer).capitalize()}: take or drop (MENU)",
            Phase.MOVE: f"{who} to play {game.dice[0]}{game.dice[1]}" if game.dice else "",
            Phase.RESIGNING: "Resignation offered: ACCEPT or MENU",
        }.get(game.phase, "")

    def clock(self) -> tuple[float, float, str | None] | None:
        """Seconds left to White and Black and whose clock runs, or ``None`` when no clock is used."""
        if self.clock_rules is None:
            return None
        return remaining(self.log.events, self.clock_rules, self.last_t)

    def _show_state(self, d: Decision, text: str) -> None:
        players = self.log.players
        score = self.log.match.score
        game = self.game
        length = self.log.rules.length
        head = f"{players[0]} {score[0]} - {score[1]} {players[1]}" + (f" ({length})" if length else " (money)")
        d.signals.append(Display((head, text)))
        d.signals.append(Scoreboard(score, length, bool(game and game.crawford), self.log.match.post_crawford,
                                    game.cube if game else 1, game.owner if game else None, self.clock()))

    def _refresh(self, d: Decision) -> None:
        game = self.game
        turn = game.turn if game is not None and game.phase in (Phase.ROLL, Phase.MOVE, Phase.DOUBLED) else None
        lights = Lights(turn, ok=self.illegal is None and game is not None and game.phase is not Phase.OPENING,
                        illegal=self.illegal is not None)
        if lights != self._lights:
            self._lights = lights
            d.signals.append(lights)


__all__ = ["Referee", "Press", "Button", "Decision", "Lights", "Beep", "Display", "Scoreboard", "PointLights",
           "RecordChanged", "RecalibrateRequested", "NewMatchRequested", "Timing", "Rule"]
