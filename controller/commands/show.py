"""``bgref show``: the board diagram of a Position ID, a Match ID or an XGID."""

from __future__ import annotations

from engine.ids import IdError, MatchId, Xgid
from engine.position import WHITE, Position, Variant


def register(subparsers) -> None:
    p = subparsers.add_parser("show", help="print the board of a Position ID, Match ID or XGID")
    p.add_argument("id", help="Position ID (14 chars), Match ID (12 chars), both as POSID:MATCHID, or XGID=...")
    p.add_argument("--variant", choices=[v.value for v in Variant], default="standard")
    p.set_defaults(func=run)


def describe_match_id(m: MatchId) -> str:
    owner = "centred" if m.cube_owner is None else f"owned by {m.cube_owner}"
    length = "money session" if m.match_length == 0 else f"{m.match_length}-point match"
    dice = "not rolled" if m.dice == (0, 0) else f"{m.dice[0]}{m.dice[1]}"
    lines = [f"{length}, score {m.score[0]}-{m.score[1]}{', Crawford game' if m.crawford else ''}",
             f"cube {m.cube_value} {owner}; {m.on_roll} on roll, dice {dice}; game {m.game_state.name.lower()}"]
    if m.double_offered:
        lines.append(f"double offered, {m.turn} to answer")
    if m.resignation:
        lines.append(f"{m.turn.opponent} offers to resign a {m.resignation.name.lower()}")
    return "\n".join(lines)


def run(args) -> int:
    text = args.id.strip()
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        x = Xgid.decode(text, args.variant)
        print(x.position.diagram(x.on_roll))
        cube = "centred" if x.cube_owner is None else f"owned by {x.cube_owner}"
        length = "money session" if x.match_length == 0 else f"{x.match_length}-point match"
        print(f"{length}, score {x.score[0]}-{x.score[1]}; cube {x.cube_value} {cube}; dice "
              f"{x.cube_action or ''.join(map(str, x.dice))}")
        return 0
    parts = text.split(":")
    if len(parts) == 2:
        m = MatchId.decode(parts[1])
        print(Position.from_position_id(parts[0], m.on_roll, args.variant).diagram(m.on_roll))
        print(describe_match_id(m))
    elif len(text) == 14:
        print(Position.from_position_id(text, WHITE, args.variant).diagram(WHITE))
    elif len(text) == 12:
        print(describe_match_id(MatchId.decode(text)))
    else:
        raise IdError(f"{text!r} is neither a Position ID (14 characters), a Match ID (12) nor an XGID")
    return 0
