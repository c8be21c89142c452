"""Export to GNU Backgammon's SGF match format (``GM[6]``, what ``save match`` writes).

Each game is its own top-level tree. The root holds ``MI[length:L][game:G]
[ws:S0][bs:S1]`` (game from 0, scores before it), the players (``PW`` the left
player of the ``.mat``, ``PB`` the right), ``DT``/``EV``/``RO``/``PC`` from the
headers (first game only, as gnubg writes them), ``RU`` (Crawford rule or ``Crawford:CrawfordGame``, Jacoby, variant)
and ``RE[W+n]``/``RE[B+nR]``. A roll is ``;W[51xwmh]``: the dice, then one
letter pair per die step in one absolute numbering (``a`` is White's 1-point,
``x`` its 24-point, ``y`` the bar, ``z`` off). A dance is the dice alone, cube
actions are ``double``/``take``/``drop`` and dice never played ``;PL[B]DI[32]``.
"""

from __future__ import annotations

from engine.match import EndReason
from engine.position import BAR, OFF, WHITE, Side, Variant
from engine.records.model import Action
from engine.records.validate import CheckedGame, CheckedMatch, CheckedTurn

APPLICATION = "bgref"

_VARIANT_RULE = {Variant.NACKGAMMON: "Nackgammon", Variant.HYPER: "Hypergammon3"}
_HEADER_PROPERTIES = (("EventDate", "DT"), ("Event", "EV"), ("Round", "RO"), ("Site", "PC"))
_CUBE = {Action.DOUBLE: "double", Action.BEAVER: "double", Action.TAKE: "take", Action.DROP: "drop"}


def write_sgf(match: CheckedMatch) -> str:
    """The whole match as GNU Backgammon SGF; ``match`` must be valid."""
    if match.error is not None:
        raise ValueError(f"cannot export a record that is not valid: {match.error}")
    return "".join(_game(match, index, game) for index, game in enumerate(match.games))


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _letter(side: Side, point: int) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + (point - 1 if side == WHITE else 24 - point))


def _node(checked: CheckedTurn) -> str | None:
    turn = checked.turn
    player = "W" if turn.side == WHITE else "B"
    if turn.action is Action.ROLL:
        dice = f"{max(turn.dice)}{min(turn.dice)}"
        if checked.play is None:
            return f";PL[{player}]DI[{dice}]"
        steps = sorted(checked.play.steps, key=lambda s: (-s.frm, -s.to))
        return f";{player}[{dice}{''.join(_letter(turn.side, s.frm) + _letter(turn.side, s.to) for s in steps)}]"
    if turn.action in _CUBE:
        return f";{player}[{_CUBE[turn.action]}]"
    return None                   # a resignation shows in RE[...R]


def _game(match: CheckedMatch, index: int, game: CheckedGame) -> str:
    record = match.record
    rules = record.rules
    root = [f"FF[4]GM[6]CA[UTF-8]AP[{APPLICATION}]",
            f"MI[length:{rules.length}][game:{index}][ws:{game.score[0]}][bs:{game.score[1]}]",
            f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]"]
    for key, prop in _HEADER_PROPERTIES if index == 0 else ():
        value = record.header(key)
        if value:
            root.append(f"{prop}[{_escape(value.replace('.', '-') if prop == 'DT' else value)}]")
    rule = []
    if rules.length and rules.crawford:
        rule.append("Crawford:CrawfordGame" if game.crawford else "Crawford")
    if not rules.length and rules.jacoby:
        rule.append("Jacoby")
    if rules.variant in _VARIANT_RULE:
        rule.append(_VARIANT_RULE[rules.variant])
    if rule:
        root.append(f"RU[{':'.join(rule)}]")
    if game.outcome is not None:
        resigned = "R" if game.outcome.reason is EndReason.RESIGNED else ""
        root.append(f"RE[{'W' if game.outcome.winner == WHITE else 'B'}+{game.outcome.points}{resigned}]")
    nodes = [n for n in (_node(t) for t in game.turns) if n is not None]
    return "(;" + "".join(root) + "".join("\n" + n for n in nodes) + ")\n"


__all__ = ["write_sgf", "APPLICATION"]
