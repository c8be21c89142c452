"""Legal plays, play notation and checked application of a play.

A *step* moves one checker by one die; a *play* is everything a player does with
one roll. Points are numbered from the mover's side: 25 is the bar, 0 is off.
Two plays that lead to the same position are the same play, so legality is a
property of the resulting position.

>>> from engine.position import Position, WHITE
>>> start = Position.initial()
>>> len(legal_plays(start, WHITE, (3, 1)))
16
>>> apply_play(start, WHITE, (3, 1), "8/5 6/5").position_id(WHITE)
'4HPwATCwZ/ABMA'
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from enum import Enum

from engine.position import BAR, OFF, Position, Side, Variant

Dice = tuple[int, int]
_State = tuple[tuple[int, ...], tuple[int, ...]]


class Rule(str, Enum):
    """Why a play was refused; each names one rule of RULES.md."""

    UNPARSABLE = "unparsable"
    NO_CHECKER = "no-checker"
    BAR_FIRST = "bar-first"
    CLOSED_POINT = "closed-point"
    BEAR_OFF_OUTSIDE = "bear-off-outside"
    BEAR_OFF_HIGHER = "bear-off-higher"
    NOT_THE_DICE = "not-the-dice"
    USE_MORE_DICE = "use-more-dice"
    HIGHER_DIE = "higher-die"
    WRONG_HIT_MARK = "wrong-hit-mark"
    MUST_PLAY = "must-play"
    OPPONENT_MOVED = "opponent-moved"
    CHECKERS_CHANGED = "checkers-changed"
    HIT_TO_BAR = "hit-to-bar"


class InvalidPlayError(ValueError):
    """Text that is not a play in any notation bgref knows."""

    rule = Rule.UNPARSABLE
    points: tuple[int, ...] = ()


class IllegalPlayError(ValueError):
    """A play that breaks a rule; ``rule`` says which and ``points`` where.

    ``points`` are in the mover's numbering (25 the bar, 0 off).
    """

    def __init__(self, reason: str, rule: Rule, points: tuple[int, ...] = ()):
        super().__init__(reason)
        self.reason = reason
        self.rule = rule
        self.points = points


def check_dice(dice: tuple[int, ...]) -> Dice:
    """Return the roll as ``(d1, d2)``, refusing anything that is not two dice of 1..6."""
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers from 1 to 6, got {dice!r}")
    return dice[0], dice[1]


# --------------------------------------------------------------------------- steps
@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die, from ``frm`` to ``to`` (25 bar, 0 off)."""

    frm: int
    to: int
    hit: bool = False


def _point_name(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def _sources(me: tuple[int, ...]) -> range | tuple[int, ...]:
    if me[BAR]:
        return (BAR,)
    return tuple(p for p in range(24, 0, -1) if me[p])


def _step(me: tuple[int, ...], opp: tuple[int, ...], frm: int, die: int):
    """Move one checker of the mover; ``None`` when the rules do not allow it.

    Returns ``(me, opp, to, hit)``.
    """
    if not me[frm] or (me[BAR] and frm != BAR):
        return None
    to = frm - die
    if to > 0:
        blockers = opp[25 - to]
        if blockers > 1:
            return None
        m = list(me)
        m[frm] -= 1
        m[to] += 1
        if blockers:
            o = list(opp)
            o[25 - to] = 0
            o[BAR] += 1
            return tuple(m), tuple(o), to, True
        return tuple(m), opp, to, False
    if any(me[7:]) or (to < 0 and any(me[frm + 1:7])):
        return None
    m = list(me)
    m[frm] -= 1
    m[OFF] += 1
    return tuple(m), opp, OFF, False


def _plays_two_dice(me, opp, high: int, low: int) -> dict[_State, tuple]:
    both: dict[_State, tuple] = {}
    single: dict[int, dict[_State, tuple]] = {high: {}, low: {}}
    for first, second in ((high, low), (low, high)):
        for f1 in _sources(me):
            r1 = _step(me, opp, f1, first)
            if r1 is None:
                continue
            me1, opp1, t1, h1 = r1
            s1 = (f1, t1, h1)
            single[first].setdefault((me1, opp1), (s1,))
            for f2 in _sources(me1):
                r2 = _step(me1, opp1, f2, second)
                if r2 is not None:
                    key = (r2[0], r2[1])
                    if key not in both:
                        both[key] = (s1, (f2, r2[2], r2[3]))
    return both or single[high] or single[low] or {(me, opp): ()}


def _plays_doubles(me, opp, die: int) -> dict[_State, tuple]:
    # Steps are generated from non-increasing source points: every other order
    # of the same steps leads to a position this order reaches too.
    level: dict[tuple, tuple] = {(me, opp, BAR): ()}
    best: dict[_State, tuple] = {(me, opp): ()}
    for _ in range(4):
        following: dict[tuple, tuple] = {}
        for (m, o, highest), steps in level.items():
            for f in range(highest, 0, -1):
                if not m[f]:
                    continue
                r = _step(m, o, f, die)
                if r is None:
                    if m[BAR]:
                        break
                    continue
                key = (r[0], r[1], f)
                if key not in following:
                    following[key] = steps + ((f, r[2], r[3]),)
        if not following:
            break
        level = following
        best = {}
        for (m, o, _), steps in following.items():
            best.setdefault((m, o), steps)
    return best


def _plays(me, opp, dice: Dice) -> dict[_State, tuple]:
    d1, d2 = dice
    if d1 == d2:
        return _plays_doubles(me, opp, d1)
    return _plays_two_dice(me, opp, max(d1, d2), min(d1, d2))


# --------------------------------------------------------------------------- plays
@dataclass(frozen=True, slots=True)
class Play:
    """The steps of one turn in the order they were made."""

    steps: tuple[Step, ...] = ()

    def __str__(self) -> str:
        return format_play(self.steps)

    def __bool__(self) -> bool:
        return bool(self.steps)

    @property
    def dice_used(self) -> int:
        return len(self.steps)


@dataclass(frozen=True, slots=True)
class LegalPlay:
    """A distinct legal play and the position it leads to."""

    play: Play
    position: Position

    def __str__(self) -> str:
        return str(self.play)


def _mover_frame(position: Position, side: Side):
    return position.side(side), position.side(side.opponent)


def legal_plays(position: Position, side: Side, dice: tuple[int, int]) -> list[LegalPlay]:
    """Every distinct legal play of ``side`` for ``dice``.

    One entry per distinct resulting position. When nothing can be played the
    list holds the empty play, which leaves the position as it is.
    """
    d = check_dice(dice)
    me, opp = _mover_frame(position, side)
    variant = position.variant
    return [
        LegalPlay(Play(tuple(Step(*s) for s in steps)), Position._trusted(m, o, side, variant))
        for (m, o), steps in _plays(me, opp, d).items()
    ]


def legal_position_ids(position: Position, side: Side, dice: tuple[int, int]) -> list[str]:
    """Sorted Position IDs (from the mover's side) of every legal result; empty if none."""
    me, opp = _mover_frame(position, side)
    options = _plays(me, opp, check_dice(dice))
    if (me, opp) in options and not options[(me, opp)]:
        return []
    return sorted(Position._trusted(m, o, side, position.variant).position_id(side) for (m, o) in options)


def max_dice_playable(position: Position, side: Side, dice: tuple[int, int]) -> int:
    """How many dice (numbers) the rules require to be played with this roll."""
    return legal_plays(position, side, dice)[0].play.dice_used


def can_play(position: Position, side: Side, dice: tuple[int, int]) -> bool:
    """False when the roll has no legal play at all (the player dances or is blocked)."""
    return max_dice_playable(position, side, dice) > 0


# --------------------------------------------------------------------------- notation
def format_play(steps) -> str:
    """GNU Backgammon notation: one checker's steps merged, repeats as ``(n)``.

    Hits are marked ``*``; a checker that hits on its way shows each hit point
    (``bar/20*/18*``). Moves are listed from the highest starting point.
    """
    raw = sorted(((s.frm, s.to, s.hit) if isinstance(s, Step) else tuple(s) for s in steps),
                 key=lambda s: (-s[0], -s[1]))
    chains: list[tuple[list[int], set[int]]] = []
    for frm, to, hit in raw:
        for path, hits in chains:
            if path[-1] == frm:
                path.append(to)
                break
        else:
            path, hits = [frm, to], set()
            chains.append((path, hits))
        if hit:
            hits.add(to)
    # Moves with the same start and end are written once with a count; a hit
    # made by any of them marks the point.
    groups: dict[tuple[int, int], list] = {}
    for path, hits in chains:
        group = groups.setdefault((path[0], path[-1]), [path, set(), 0])
        group[1] |= hits
        group[2] += 1
    texts = []
    for path, hits, n in groups.values():
        parts = [_point_name(path[0])]
        for p in path[1:]:
            if p in hits or p == path[-1]:
                parts.append(_point_name(p) + ("*" if p in hits else ""))
        text = "/".join(parts)
        texts.append(text if n == 1 else f"{text}({n})")
    return " ".join(texts)


_POINT = r"(?:bar|off|\d{1,2})"
_MOVE = re.compile(rf"^({_POINT}\*?(?:/{_POINT}\*?)+)(?:\((\d)\))?$")


@dataclass(frozen=True, slots=True)
class Segment:
    """A checker's movement as written: ``frm``/``to`` (25 bar, 0 off), ``hit`` if ``*``."""

    frm: int
    to: int
    hit: bool = False


def parse_play(text: str) -> tuple[Segment, ...]:
    """Parse any dialect real match files use into written segments.

    ``24/18 13/11*``, ``13/7(2)``, ``bar/22``, ``25/22``, ``6/off``, ``6/0``,
    merged ``24/14`` and chains ``bar/20*/18*``. An empty text or ``Cannot Move``
    is the empty play.
    """
    text = text.strip()
    if not text or text.lower() == "cannot move":
        return ()
    segments: list[Segment] = []
    for token in text.lower().split():
        m = _MOVE.match(token)
        if not m:
            raise InvalidPlayError(f"cannot read {token!r} as a move (expected e.g. 13/7, bar/22, 6/off, 8/5*(2))")
        repeat = int(m.group(2) or 1)
        if repeat < 1 or repeat > 4:
            raise InvalidPlayError(f"repeat count ({repeat}) in {token!r} must be 1-4")
        points = []
        for part in m.group(1).split("/"):
            hit = part.endswith("*")
            name = part.rstrip("*")
            p = BAR if name == "bar" else OFF if name == "off" else int(name)
            if not 0 <= p <= 25:
                raise InvalidPlayError(f"point {p} in {token!r} does not exist (0-25)")
            points.append((p, hit))
        chain = []
        for (a, _), (b, hit) in zip(points, points[1:]):
            if b >= a:
                raise InvalidPlayError(f"{token!r} moves backwards from {_point_name(a)} to {_point_name(b)}")
            if a == OFF:
                raise InvalidPlayError(f"{token!r} moves a checker that is already off")
            if b == BAR:
                raise InvalidPlayError(f"{token!r} moves a checker onto the bar")
            chain.append(Segment(a, b, hit))
        segments.extend(chain * repeat)
    if len(segments) > 8:
        raise InvalidPlayError(f"{text!r} has {len(segments)} moves; a roll gives at most four")
    return tuple(segments)


# --------------------------------------------------------------------------- checking
def _explain_step(me, opp, frm: int, die: int) -> IllegalPlayError | None:
    """The rule a single step breaks, or ``None`` if it is allowed."""
    to = frm - die
    dest = _point_name(max(to, 0))
    if me[BAR] and frm != BAR:
        return IllegalPlayError(
            f"must enter from the bar before moving {_point_name(frm)}/{dest}", Rule.BAR_FIRST, (BAR, frm))
    if not me[frm]:
        where = "on the bar" if frm == BAR else f"on point {frm}"
        return IllegalPlayError(f"there is no checker {where}", Rule.NO_CHECKER, (frm,))
    if to > 0:
        if opp[25 - to] > 1:
            return IllegalPlayError(f"point {to} is closed", Rule.CLOSED_POINT, (to,))
        return None
    outside = tuple(p for p in range(25, 6, -1) if me[p])
    if outside:
        names = ", ".join(_point_name(p) for p in outside)
        return IllegalPlayError(
            f"cannot bear off from {frm} with checkers outside the home board (on {names})",
            Rule.BEAR_OFF_OUTSIDE, (frm, *outside))
    if to < 0:
        higher = tuple(p for p in range(6, frm, -1) if me[p])
        if higher:
            return IllegalPlayError(
                f"cannot bear off from {frm} with a {die} while a checker stands on {higher[0]}:"
                f" the {die} must be played from a higher point", Rule.BEAR_OFF_HIGHER, (frm, higher[0]))
    return None


def _die_splits(seg: Segment, dice: list[int]):
    """Ways to cover one written segment with dice from ``dice``: (dice used, rest)."""
    distance = seg.frm - seg.to

    def walk(pos: int, left: list[int], used: tuple[int, ...]):
        for i, d in enumerate(left):
            if d in left[:i]:
                continue
            rest = left[:i] + left[i + 1:]
            if pos - d == seg.to or (seg.to == OFF and pos - d < 0):
                yield used + (d,), rest
            elif pos - d > seg.to and pos - d > 0:
                yield from walk(pos - d, rest, used + (d,))

    if distance <= 0:
        return
    yield from walk(seg.frm, dice, ())


def _assignments(segments, dice: list[int]):
    """Every way to give each written segment its dice, in the written order."""
    if not segments:
        yield ()
        return
    for used, rest in _die_splits(segments[0], dice):
        for tail in _assignments(segments[1:], rest):
            yield ((segments[0], used),) + tail


def _dice_text(dice: Dice) -> str:
    return f"{max(dice)}{min(dice)}"


def _simulate(me, opp, plan):
    """Play ``plan`` (segments with their dice) in any order the rules allow.

    Each segment's own steps keep their order; segments may interleave (a
    checker entering from the bar must go before one moving on the board).
    Returns ``(me, opp, steps)`` or the first rule broken.
    """
    first_error: list[IllegalPlayError] = []

    def walk(me, opp, progress: tuple[int, ...], at: tuple[int, ...], steps: tuple):
        done = True
        for i, (seg, used) in enumerate(plan):
            k = progress[i]
            if k == len(used):
                continue
            done = False
            err = _explain_step(me, opp, at[i], used[k])
            if err is not None:
                first_error.append(err)
                continue
            m, o, to, hit = _step(me, opp, at[i], used[k])
            found = walk(m, o, progress[:i] + (k + 1,) + progress[i + 1:], at[:i] + (to,) + at[i + 1:],
                         steps + (Step(at[i], to, hit),))
            if found is not None:
                return found
        return (me, opp, steps) if done else None

    found = walk(me, opp, (0,) * len(plan), tuple(seg.frm for seg, _ in plan), ())
    return found if found is not None else first_error[0]


def _check_hit_marks(segments, steps) -> IllegalPlayError | None:
    hits = {s.to for s in steps if s.hit}
    for seg in segments:
        if seg.hit and seg.to not in hits:
            return IllegalPlayError(f"{seg.to} is marked as a hit but there is no blot to hit there",
                                    Rule.WRONG_HIT_MARK, (seg.to,))
    return None


def check_play(position: Position, side: Side, dice: tuple[int, int], play) -> LegalPlay:
    """Apply a play only if the rules allow it; otherwise say which rule it breaks.

    ``play`` is notation text, a sequence of :class:`Segment` or a :class:`Play`.
    Raises :class:`InvalidPlayError` for text that does not parse and
    :class:`IllegalPlayError` (with ``rule`` and ``points``) for an illegal play.
    """
    d = check_dice(dice)
    if isinstance(play, str):
        segments = parse_play(play)
    elif isinstance(play, Play):
        segments = tuple(Segment(s.frm, s.to, s.hit) for s in play.steps)
    else:
        segments = tuple(play)
    me, opp = _mover_frame(position, side)
    options = _plays(me, opp, d)
    required = len(next(iter(options.values())))
    variant = position.variant

    def legal(m, o, steps) -> LegalPlay:
        return LegalPlay(Play(steps), Position._trusted(m, o, side, variant))

    if not segments:
        if required == 0:
            return legal(me, opp, ())
        example = format_play(next(iter(options.values())))
        raise IllegalPlayError(f"a play is possible with {_dice_text(d)} (for example {example})",
                               Rule.MUST_PLAY, ())
    dice_list = [d[0]] * 4 if d[0] == d[1] else sorted(d, reverse=True)
    first_error: IllegalPlayError | None = None
    fitted = False
    played_short = None
    accepted = None
    for plan in _assignments(segments, dice_list):
        fitted = True
        outcome = _simulate(me, opp, plan)
        if isinstance(outcome, IllegalPlayError):
            first_error = first_error or outcome
            continue
        m, o, steps = outcome
        if (m, o) not in options:
            played_short = played_short or steps
            continue
        # A merged move such as 13/5 names no intermediate point: prefer the
        # route that hits nowhere the text does not say.
        unmarked = sum(1 for s in steps if s.hit and not any(g.hit and g.to == s.to for g in segments))
        if accepted is None or unmarked < accepted[0]:
            accepted = (unmarked, m, o, steps)
    if accepted is not None:
        _, m, o, steps = accepted
        mark_error = _check_hit_marks(segments, steps)
        if mark_error:
            raise mark_error
        return legal(m, o, steps)
    if played_short is not None:
        raise _not_maximal(played_short, d, required, options)
    if first_error is not None:
        raise first_error
    if not fitted:
        written = " ".join(f"{_point_name(s.frm)}/{_point_name(s.to)}" for s in segments)
        raise IllegalPlayError(f"{written} does not fit the roll {_dice_text(d)}",
                               Rule.NOT_THE_DICE, tuple(s.frm for s in segments))
    raise IllegalPlayError("not a legal play", Rule.NOT_THE_DICE, ())  # pragma: no cover


def _not_maximal(steps, dice: Dice, required: int, options) -> IllegalPlayError:
    example = format_play(next(iter(options.values())))
    points = tuple(s.frm for s in steps)
    if len(steps) < required:
        if dice[0] == dice[1]:
            what = f"must play {required} {dice[0]}s"
        elif required == 2:
            what = "must use both dice"
        else:
            what = "must play a die"
        return IllegalPlayError(f"{what} (for example {example})", Rule.USE_MORE_DICE, points)
    high = max(dice)
    return IllegalPlayError(f"only one die can be played and it must be the higher one, the {high}"
                            f" (for example {example})", Rule.HIGHER_DIE, points)


def apply_play(position: Position, side: Side, dice: tuple[int, int], play) -> Position:
    """The position after a checked play (see :func:`check_play`)."""
    return check_play(position, side, dice, play).position


def apply_steps(position: Position, side: Side, steps) -> Position:
    """Apply steps without checking the dice or the rules of a turn (unchecked).

    Hits are made wherever a step lands on a single opposing checker. Raises
    :class:`IllegalPlayError` only when a checker is not there to move.
    """
    me, opp = (list(c) for c in _mover_frame(position, side))
    for s in steps:
        if not me[s.frm]:
            raise IllegalPlayError(f"there is no checker on {_point_name(s.frm)}", Rule.NO_CHECKER, (s.frm,))
        me[s.frm] -= 1
        me[s.to] += 1
        if s.to and opp[25 - s.to] == 1:
            opp[25 - s.to] = 0
            opp[BAR] += 1
    return Position.from_sides(me, opp, side, position.variant)


# --------------------------------------------------------------------------- observed results
def _check_opponent(opp0: tuple[int, ...], opp1: tuple[int, ...]) -> None:
    """During a play the opponent's checkers only go from a blot to the bar."""
    lost = [opp0[p] - opp1[p] for p in range(26)]
    hit_points = tuple(25 - p for p in range(1, 25) if lost[p] == 1 and opp0[p] == 1)
    to_bar = -lost[BAR]
    if to_bar < len(hit_points):
        names = ", ".join(str(p) for p in hit_points)
        raise IllegalPlayError(f"the checker hit on point {names} must be put on the bar",
                               Rule.HIT_TO_BAR, hit_points)
    for p in range(26):
        point = 25 - p if 1 <= p <= 24 else p
        if (p != BAR and lost[p] and point not in hit_points) or (p == BAR and to_bar > len(hit_points)):
            raise IllegalPlayError(f"a checker of the opponent was moved on point {_point_name(point)}",
                                   Rule.OPPONENT_MOVED, (point,))


def segments_between(before: Position, after: Position, side: Side, strict: bool = True
                     ) -> list[tuple[Segment, ...]]:
    """Candidate written plays that turn ``before`` into ``after`` for ``side``.

    Sources and destinations are paired in every distinct way (the first
    candidate pairs them from the highest points down). Raises
    :class:`IllegalPlayError` when the opponent's checkers moved other than to
    the bar (unless ``strict`` is false: then only the mover's checkers count),
    or when checkers appeared or vanished.
    """
    me0, opp0 = _mover_frame(before, side)
    me1, opp1 = _mover_frame(after, side)
    if strict:
        _check_opponent(opp0, opp1)
    sources = [p for p in range(25, 0, -1) for _ in range(max(0, me0[p] - me1[p]))]
    targets = [p for p in range(24, -1, -1) for _ in range(max(0, me1[p] - me0[p]))]
    if len(sources) != len(targets):
        raise IllegalPlayError("checkers were added to or removed from the board",
                               Rule.CHECKERS_CHANGED, tuple(sources + targets))
    if len(sources) > 4:
        raise IllegalPlayError(f"{len(sources)} checkers moved; a roll moves at most four",
                               Rule.NOT_THE_DICE, tuple(sources))
    pairings = []
    seen = set()
    for perm in itertools.permutations(targets):
        if perm in seen:
            continue
        seen.add(perm)
        if all(b < a for a, b in zip(sources, perm)):
            pairings.append(tuple(Segment(a, b) for a, b in zip(sources, perm)))
    if not pairings:
        raise IllegalPlayError("a checker moved backwards", Rule.NOT_THE_DICE, tuple(sources))
    return pairings


_RULE_RANK = {Rule.NOT_THE_DICE: 0, Rule.NO_CHECKER: 1}


def explain_result(before: Position, after: Position, side: Side, dice: tuple[int, int]) -> LegalPlay:
    """Accept ``after`` as the play of ``side`` with ``dice``, or say which rule it breaks.

    This is how a referee judges a board it sees: the play is inferred from the
    two positions and checked like a written one.
    """
    d = check_dice(dice)
    me, opp = _mover_frame(before, side)
    target = _mover_frame(after, side)
    options = _plays(me, opp, d)
    if target in options:
        return LegalPlay(Play(tuple(Step(*s) for s in options[target])), after)
    best: IllegalPlayError | None = None
    for segments in segments_between(before, after, side):
        try:
            check_play(before, side, d, segments)
        except IllegalPlayError as err:
            if best is None or _RULE_RANK.get(err.rule, 2) > _RULE_RANK.get(best.rule, 2):
                best = err
    raise best


__all__ = [
    "Dice", "Rule", "InvalidPlayError", "IllegalPlayError", "Step", "Play", "LegalPlay", "Segment",
    "legal_plays", "legal_position_ids", "max_dice_playable", "can_play", "format_play", "parse_play",
    "check_play", "apply_play", "apply_steps", "segments_between", "explain_result", "check_dice",
    "Variant",
]
