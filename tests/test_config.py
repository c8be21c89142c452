"""The TOML configuration: every key read, and bad files refused with the file and the key."""

from __future__ import annotations

import pytest

from controller.config import ConfigError, load


def write(tmp_path, text: str):
    path = tmp_path / "bgref.toml"
    path.write_text(text)
    return path


def test_full_configuration(tmp_path):
    config = load(write(tmp_path, """
[match]
players = ["Alice", "Bob"]
length = 0
beaver = true
auto_doubles = 2
[clock]
reserve_minutes = 10
delay_seconds = 8
[camera]
source = 0
calibration = "cal.json"
[display]
ports = ["/dev/ttyACM0", "socket://127.0.0.1:7000"]
[gpio]
ok = 26
[paths]
journal_dir = "j"
[timing]
clear_view_after = 5
"""))
    assert config.players == ("Alice", "Bob") and config.rules.money and config.rules.beaver
    assert config.clock.reserve == 600 and config.clock.delay == 8
    assert config.camera.source == "0" and config.camera.calibration == str(tmp_path / "cal.json")
    assert config.display.ports == ("/dev/ttyACM0", "socket://127.0.0.1:7000")
    assert config.gpio.ok == 26 and config.gpio.menu == 13
    assert config.journal_dir == tmp_path / "j" and config.timing.clear_view_after == 5.0


def test_empty_file_gives_defaults(tmp_path):
    config = load(write(tmp_path, ""))
    assert config.rules.length == 5 and config.gpio is None and config.clock is None


@pytest.mark.parametrize("text, words", [
    ("[match]\nlength = 'seven'", "[match] length must be a whole number"),
    ("[match]\nlength = 5\njacoby = true", "money play"),
    ("[match]\nvariant = 'chess'", "variant"),
    ("[gpio]\nok = 5\naccept = 5", "share a pin"),
    ("[camera]\nlens = 3", "unknown key(s): lens"),
    ("[wifi]\nssid = 'x'", "unknown section(s): wifi"),
    ("[match\n", "bgref.toml"),
])
def test_bad_configuration_names_file_and_key(tmp_path, text, words):
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, text))
    assert words in str(info.value) and "bgref.toml" in str(info.value)


def test_the_pi_example_configuration_loads():
    from pathlib import Path
    config = load(Path(__file__).resolve().parents[1] / "hardware" / "pi" / "bgref.toml")
    assert config.rules.length == 7 and config.gpio is not None and config.display.ports == ("/dev/ttyACM*",)
    assert str(config.journal_dir).startswith("/var/lib/bgref")
