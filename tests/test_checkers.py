"""Checker counts weighed together: each side has all its checkers, covered regions hold
what is missing, and the ranges are honest."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.position import Position
from vision.checkers import CLASSES, allowed_classes, count_class, joint, point_read, position_classes, side_range
from vision.observation import Observation
from vision.strips import BAR, REGIONS, TRAY


def _probabilities(counts: dict, spread: dict | None = None, off: tuple[int, int] = (0, 0),
                   bar: tuple[int, int] = (0, 0)) -> np.ndarray:
    """A network's reading: each region certain of its signed count (+White, -Black, points
    by number, the trays' and bar halves' counts given) except those in ``spread``, which
    give every signed count listed an equal chance."""
    regions = {n: counts.get(n, 0) for n in range(1, 25)}
    regions.update({("bar", "white"): bar[0], ("bar", "black"): -bar[1],
                    ("off", "white"): off[0], ("off", "black"): -off[1]})
    out = np.full((len(REGIONS), CLASSES), 1e-7)
    for i, region in enumerate(REGIONS):
        for signed in (spread or {}).get(region, [regions[region]]):
            out[i, count_class(signed)] = 1.0
    return out / out.sum(axis=1, keepdims=True)


def _observe(probabilities: np.ndarray, covered=(), checkers: int = 15) -> Observation:
    unknown = np.array([r in covered for r in REGIONS])
    marginals = joint(probabilities, unknown, checkers)
    points = [point_read(n, marginals[n - 1], n in covered) for n in range(1, 25)]
    bar = {s: side_range(marginals[BAR[s]], s) for s in ("white", "black")}
    off = {s: side_range(marginals[TRAY[s]], s) for s in ("white", "black")}
    return Observation(True, True, tuple(points), bar=bar, off=off)


def test_the_checker_totals_settle_a_pile_the_network_cannot_count():
    # White's 6 point is read as 6 to 10; 4 more on the 8 point and 3 borne off: it holds 8
    probs = _probabilities({6: 8, 8: 4, 19: -15}, {6: [6, 7, 8, 9, 10]}, off=(3, 0))
    obs = _observe(probs)
    assert obs.point(6).count_range == (8, 8) and obs.point(6).certain
    assert obs.off == {"white": (3, 3), "black": (0, 0)}
    assert obs.to_position() == Position.from_points({6: 8, 8: 4, 19: -15})


def test_two_unsure_piles_keep_their_ranges():
    # either of two piles may hold the 15th White checker: both stay ranges
    probs = _probabilities({6: 5, 8: 6, 13: 4, 19: -15}, {6: [5, 6], 8: [5, 6]})
    obs = _observe(probs)
    assert obs.point(6).count_range == (5, 6) and obs.point(8).count_range == (5, 6)
    assert obs.point(13).certain and obs.to_position() is None
    assert obs.admits(Position.from_points({6: 6, 8: 5, 13: 4, 19: -15}))
    assert obs.admits(Position.from_points({6: 5, 8: 6, 13: 4, 19: -15}))


def test_a_covered_point_holds_what_is_missing():
    # a hand over the 13 point: whatever the network says there, White's 4 checkers not
    # seen elsewhere lie under it; a covered point is never certain
    probs = _probabilities({6: 5, 8: 6, 13: 4, 19: -15}, {13: [-3, 7]})
    obs = _observe(probs, covered=(13,))
    p = obs.point(13)
    assert p.occluded and p.count_range == (4, 4) and p.color == "white" and not p.certain
    assert obs.admits(Position.from_points({6: 5, 8: 6, 13: 4, 19: -15})) and obs.to_position() is None
    # two covered points share them
    obs = _observe(probs, covered=(13, 8))
    assert obs.point(13).count_range == (0, 10) and obs.point(8).count_range == (0, 10)


def test_a_checker_too_many_makes_the_side_uncertain():
    # 16 White checkers read: one of them is not there, but which is not known
    probs = _probabilities({1: 2, 2: 3, 3: 3, 4: 3, 5: 5, 19: -15})
    obs = _observe(probs)
    assert [obs.point(n).count_range for n in range(1, 6)] == [(1, 2), (2, 3), (2, 3), (2, 3), (4, 5)]
    assert obs.point(19).certain and obs.to_position() is None


def test_a_side_bar_half_and_tray_hold_only_its_own_checkers():
    # a reading that names Black's checkers in White's tray is not believed there
    probs = _probabilities({1: 5, 2: 5, 3: 5, 19: -12}, {("off", "white"): [-3]}, off=(0, 3))
    obs = _observe(probs)
    assert obs.off["white"] == (0, 0) and obs.off["black"] == (3, 3)


def test_hypergammon_has_three_checkers_a_side():
    probs = _probabilities({24: 1, 23: 1, 22: 1, 1: -1, 2: -1, 3: -1}, {22: [1, 2]})
    obs = _observe(probs, checkers=3)
    assert obs.point(22).count_range == (1, 1)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.floats(0.0, 1.0), min_size=CLASSES, max_size=CLASSES), min_size=4, max_size=4),
       st.lists(st.sampled_from(range(len(REGIONS))), min_size=4, max_size=4, unique=True))
def test_the_weighing_is_exact(free, where):
    """Against every board the free regions can make, for Hypergammon's three checkers a side."""
    checkers = 3
    ok = allowed_classes(checkers)
    probs = np.full((len(REGIONS), CLASSES), 0.0)
    probs[:, 0] = 1.0                                   # every other region empty ...
    for r, p in zip(where, free):
        probs[r] = np.asarray(p) + 1e-3
    marginals = joint(probs, np.zeros(len(REGIONS), bool), checkers)
    expected = np.zeros((4, CLASSES))
    choices = [np.flatnonzero(ok[r]) for r in where]
    for combo in itertools.product(*choices):
        white = sum(c for c in combo if c <= 15)
        black = sum(c - 15 for c in combo if c > 15)
        if white == black == checkers:
            weight = np.prod([probs[r, c] / probs[r][ok[r]].sum() for r, c in zip(where, combo)])
            for i, c in enumerate(combo):
                expected[i, c] += weight
    if expected.sum() == 0:
        return
    expected /= expected.sum(axis=1, keepdims=True)
    assert np.allclose(marginals[list(where)], expected, atol=1e-9)


def test_a_position_gives_each_region_its_class():
    """White's counts are classes 1..15, Black's 16..30, by region: points, bar halves, trays."""
    position = Position.from_points({6: 5, 8: 3, 13: 4, 1: -2, 12: -5, 17: -3, 19: -4}, bar=(1, 1))
    classes = position_classes(position)
    assert classes[5] == 5 and classes[7] == 3 and classes[12] == 4
    assert classes[0] == count_class(-2) == 17 and classes[11] == 20
    assert classes[BAR["white"]] == 1 and classes[BAR["black"]] == 16
    assert classes[TRAY["white"]] == 2 and classes[TRAY["black"]] == 0
