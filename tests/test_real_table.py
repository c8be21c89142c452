"""``real_table``: the devices a configuration names, here a folder of camera frames and a display unit on TCP."""

from __future__ import annotations

import cv2
import pytest

from controller.config import load
from controller.journal import Journal
from controller.table import real_table
from engine.position import Position
from hardware.sim.display_unit import SimulatedDisplayUnit
from hardware.sim.renderer import Conditions, render


def test_a_configured_table_calibrates_starts_the_match_and_drives_the_display(tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    for n in range(6):
        image, _ = render(Position.initial(), dice=(), seed=1, style="tournament", conditions=Conditions.clean())
        cv2.imwrite(str(frames / f"{n:03d}.png"), image)
    with SimulatedDisplayUnit(transport="tcp") as unit:
        config_file = tmp_path / "bgref.toml"
        config_file.write_text(f"""
[match]
players = ["Alice", "Bob"]
length = 3
[camera]
source = "{frames}/*.png"
calibration = "cal.json"
[display]
ports = ["{unit.url}"]
""")
        config = load(config_file)
        table = real_table(config)
        try:
            table.service.start()
            for _ in range(6):
                table.service.step()
            assert (tmp_path / "cal.json").exists()
            events = [e["type"] for e in Journal(tmp_path / "journal" / "current.journal").events]
            assert events[:2] == ["match", "game"]
            assert unit.wait_until(lambda s: any("Alice 0 - 0 Bob" in r for r in s.rows), timeout=5)
        finally:
            table.close()
