"""Strips: every region cut the same way up, from the base along its checkers."""

from __future__ import annotations

import numpy as np

from engine.position import Position
from hardware.sim.renderer import Conditions, render
from vision.board_model import BoardModel
from vision.calibration import calibrate
from vision.strips import BEFORE, CHANNELS, REGIONS, STRIP_LENGTH, STRIP_PPD, STRIP_WIDTH, StripCutter, canonical_grid


def test_each_strip_starts_at_its_region_base_and_runs_along_its_checkers():
    model = BoardModel()
    grid = canonical_grid(model)
    s = model.ppd
    base_row = int(round(BEFORE * STRIP_PPD))
    for i, region in enumerate(REGIONS):
        if not isinstance(region, int):
            continue
        x, y, d = model.point_base(region)
        centre = grid[i, base_row, STRIP_WIDTH // 2]
        assert abs(centre[0] - x) < 0.1 * s and abs(centre[1] - y) < 0.1 * s, region
        # one diameter further along the strip is one diameter toward the point's tip
        step = grid[i, base_row + int(STRIP_PPD), STRIP_WIDTH // 2] - centre
        assert np.allclose(step, (0, d * s), atol=0.1 * s), region
    bar_white, bar_black = grid[REGIONS.index(("bar", "white"))], grid[REGIONS.index(("bar", "black"))]
    assert bar_white[-1, STRIP_WIDTH // 2, 1] < bar_white[0, STRIP_WIDTH // 2, 1]   # White's half: upward
    assert bar_black[-1, STRIP_WIDTH // 2, 1] > bar_black[0, STRIP_WIDTH // 2, 1]
    tray = grid[REGIONS.index(("off", "white"))]
    assert abs(tray[base_row, STRIP_WIDTH // 2, 1] - model.tray("white")[3]) < 0.1 * s   # from its outer end


def test_strips_of_a_frame_show_its_checkers_and_features_tell_the_sides():
    frame, _ = render(Position.initial(), dice=(), seed=1, style="tournament", conditions=Conditions.clean())
    cal = calibrate(frame)
    cutter = StripCutter(cal.model, cal.to_frame, cal.empty, cal.white.lab, cal.black.lab)
    strips = cutter.cut(frame)
    assert strips.shape == (len(REGIONS) * STRIP_LENGTH, STRIP_WIDTH, 3)
    x = cutter.features(strips)
    assert x.shape == (len(REGIONS), CHANNELS, STRIP_LENGTH, STRIP_WIDTH)
    slot = slice(int((BEFORE + 0.3) * STRIP_PPD), int((BEFORE + 0.7) * STRIP_PPD))
    middle = slice(STRIP_WIDTH // 2 - 3, STRIP_WIDTH // 2 + 3)
    side = x[:, 4, slot, middle].mean(axis=(1, 2))
    change = x[:, 3, slot, middle].mean(axis=(1, 2))
    opening = Position.initial().points()
    for i, signed in enumerate(opening):
        if signed > 0:
            assert side[i] > 0.2, i + 1           # White's checker in the first slot
        elif signed < 0:
            assert side[i] < -0.2, i + 1
        else:
            assert change[i] < change[np.flatnonzero(opening)].min(), i + 1   # empty points unchanged
