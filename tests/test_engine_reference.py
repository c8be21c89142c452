"""The engine against GNU Backgammon's reference legal plays and Match IDs (../shared/data/legal)."""

from __future__ import annotations

import json

import pytest

from engine.ids import MatchId
from engine.moves import apply_play, legal_plays, legal_position_ids
from engine.position import WHITE, Position


def _cases(data, name):
    with open(data / "legal" / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.parametrize("name", ["legal_standard.jsonl", "legal_hyper.jsonl"])
def test_every_reference_case_agrees(shared_data, name):
    failures = []
    cases = _cases(shared_data, name)
    assert len(cases) >= 500
    for c in cases:
        position = Position.from_position_id(c["position_id"], WHITE, c["variant"])
        assert position == Position.from_board(c["board"], WHITE, c["variant"])
        assert position.position_id(WHITE) == c["position_id"]
        ids = legal_position_ids(position, WHITE, tuple(c["dice"]))
        if ids != c["legal_after"]:
            failures.append((c["position_id"], c["dice"], len(ids), len(c["legal_after"])))
    assert failures == []


@pytest.mark.parametrize("name", ["legal_standard.jsonl", "legal_hyper.jsonl"])
def test_every_listed_move_parses_applies_and_is_written_alike(shared_data, name):
    for c in _cases(shared_data, name):
        position = Position.from_position_id(c["position_id"], WHITE, c["variant"])
        dice = tuple(c["dice"])
        written = {lp.position.position_id(WHITE): str(lp.play) for lp in legal_plays(position, WHITE, dice)}
        for move, after in zip(c["moves"], c["legal_after"]):
            assert apply_play(position, WHITE, dice, move).position_id(WHITE) == after, (c["position_id"], move)
            assert written[after] == move


def test_categories_are_covered(shared_data):
    categories = {cat for c in _cases(shared_data, "legal_standard.jsonl") for cat in c["category"]}
    assert {"bar", "no_move", "doubles", "opening"} <= categories


def test_match_id_examples_round_trip(shared_data):
    examples = json.loads((shared_data / "legal" / "matchid_examples.json").read_text())
    assert examples
    for e in examples:
        m, d = MatchId.decode(e["match_id"]), e["decoded"]
        assert m.encode() == e["match_id"]
        assert m.cube_value == d["cube_value"]
        assert (m.cube_owner is None) == (d["cube_owner"] == "centered")
        if m.cube_owner is not None:
            assert int(m.cube_owner) == d["cube_owner"]
        assert int(m.on_roll) == d["dice_owner_on_roll"] and int(m.turn) == d["turn"]
        assert m.crawford == bool(d["crawford"]) and m.double_offered == bool(d["double_offered"])
        assert m.resignation.name.lower() == d["resignation"]
        assert list(m.dice) == d["dice"] and m.match_length == d["match_length"]
        assert list(m.score) == d["score"] and m.extra == d["bits_66_and_up"]
        assert MatchId(m.cube_value, m.cube_owner, m.on_roll, m.crawford, m.game_state, m.turn, m.double_offered,
                       m.resignation, m.dice, m.match_length, m.score, m.extra).encode() == e["match_id"]
