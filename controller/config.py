"""The service's configuration: a TOML file, every key optional, checked with clear errors.

Example (all sections and keys, with their defaults where they have one)::

    [match]
    players = ["White", "Black"]
    length = 5                 # 0 = money session
    variant = "standard"       # standard, hyper, nackgammon
    crawford = true
    jacoby = false             # money only
    beaver = false             # money only
    raccoon = false            # money only
    auto_doubles = 0           # money only: equal opening rolls that turn the cube
    max_cube = 64

    [clock]                    # leave out for no clock
    reserve_minutes = 30
    delay_seconds = 12

    [camera]
    source = "0"               # webcam index, /dev/videoN, picamera2, a video file, "frames/*.png"
    calibration = "calibration.json"
    width = 1280
    height = 720

    [display]
    ports = ["/dev/ttyACM0", "/dev/ttyACM1"]   # pyserial URLs; tried in turn
    baudrate = 115200

    [gpio]                     # BCM pin numbers; leave out the section for no GPIO
    turn_white = 17
    turn_black = 27
    ok = 22
    illegal = 23
    buzzer = 24
    accept = 5
    undo = 6
    menu = 13

    [paths]
    journal_dir = "journal"
    record_dir = "matches"

    [timing]
    clear_view_after = 8.0
    unclear_read_after = 4.0
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from controller.clock import ClockRules
from controller.referee import Timing
from engine.match import MatchRules
from engine.position import Variant


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class CameraConfig:
    source: str = "0"
    calibration: str = "calibration.json"
    width: int = 1280
    height: int = 720


@dataclass(frozen=True)
class DisplayConfig:
    ports: tuple[str, ...] = ()
    baudrate: int = 115200


@dataclass(frozen=True)
class GpioConfig:
    turn_white: int = 17
    turn_black: int = 27
    ok: int = 22
    illegal: int = 23
    buzzer: int = 24
    accept: int = 5
    undo: int = 6
    menu: int = 13

    def pins(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Config:
    players: tuple[str, str] = ("White", "Black")
    rules: MatchRules = field(default_factory=lambda: MatchRules(length=5))
    clock: ClockRules | None = None
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    gpio: GpioConfig | None = None
    journal_dir: Path = Path("journal")
    record_dir: Path = Path("matches")
    timing: Timing = field(default_factory=Timing)


_TYPES = {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}


def _take(path, section: str, table: dict, key: str, kind, default):
    if key not in table:
        return default
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ConfigError(f"{path}: [{section}] {key} must be {_TYPES[kind]}, not {value!r}")
    return value


def _section(path, data: dict, name: str, known: set[str]) -> dict:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [{name}] must be a table")
    unknown = set(table) - known
    if unknown:
        raise ConfigError(f"{path}: [{name}] has unknown key(s): {', '.join(sorted(unknown))}")
    return table


def load(path: str | Path) -> Config:
    """Read and check a configuration file; relative paths in it are relative to the file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: {err}") from None
    unknown = set(data) - {"match", "clock", "camera", "display", "gpio", "paths", "timing"}
    if unknown:
        raise ConfigError(f"{path}: unknown section(s): {', '.join(sorted(unknown))}")
    base = path.parent

    m = _section(path, data, "match", {"players", "length", "variant", "crawford", "jacoby", "beaver", "raccoon",
                                       "auto_doubles", "max_cube"})
    players = m.get("players", ["White", "Black"])
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) and p for p in players)):
        raise ConfigError(f"{path}: [match] players must be two names")
    variant = _take(path, "match", m, "variant", str, "standard")
    if variant not in {v.value for v in Variant}:
        raise ConfigError(f"{path}: [match] variant must be standard, hyper or nackgammon, not {variant!r}")
    try:
        rules = MatchRules(
            length=_take(path, "match", m, "length", int, 5),
            crawford=_take(path, "match", m, "crawford", bool, True),
            jacoby=_take(path, "match", m, "jacoby", bool, False),
            beaver=_take(path, "match", m, "beaver", bool, False),
            raccoon=_take(path, "match", m, "raccoon", bool, False),
            auto_doubles=_take(path, "match", m, "auto_doubles", int, 0),
            max_cube=_take(path, "match", m, "max_cube", int, 64),
            variant=Variant(variant),
        )
    except ValueError as err:
        raise ConfigError(f"{path}: [match] {err}") from None

    clock = None
    if "clock" in data:
        c = _section(path, data, "clock", {"reserve_minutes", "delay_seconds"})
        clock = ClockRules(reserve=60.0 * _take(path, "clock", c, "reserve_minutes", float, 30.0),
                           delay=_take(path, "clock", c, "delay_seconds", float, 12.0))

    cam = _section(path, data, "camera", {"source", "calibration", "width", "height"})
    source = cam.get("source", "0")
    camera = CameraConfig(
        source=str(source) if isinstance(source, int) and not isinstance(source, bool)
        else _take(path, "camera", cam, "source", str, "0"),
        calibration=str(base / _take(path, "camera", cam, "calibration", str, "calibration.json")),
        width=_take(path, "camera", cam, "width", int, 1280),
        height=_take(path, "camera", cam, "height", int, 720),
    )

    disp = _section(path, data, "display", {"ports", "port", "baudrate"})
    ports = disp.get("ports", [disp["port"]] if "port" in disp else [])
    if not (isinstance(ports, list) and all(isinstance(p, str) for p in ports)):
        raise ConfigError(f"{path}: [display] ports must be a list of port names or URLs")
    display = DisplayConfig(tuple(ports), _take(path, "display", disp, "baudrate", int, 115200))

    gpio = None
    if "gpio" in data:
        g = _section(path, data, "gpio", {f.name for f in fields(GpioConfig)})
        gpio = GpioConfig(**{k: _take(path, "gpio", g, k, int, getattr(GpioConfig, k)) for k in g})
        pins = list(gpio.pins().values())
        if len(set(pins)) != len(pins):
            raise ConfigError(f"{path}: [gpio] two devices share a pin")

    p = _section(path, data, "paths", {"journal_dir", "record_dir"})
    t = _section(path, data, "timing", {"clear_view_after", "unclear_read_after"})
    timing = Timing(clear_view_after=_take(path, "timing", t, "clear_view_after", float, Timing.clear_view_after),
                    unclear_read_after=_take(path, "timing", t, "unclear_read_after", float,
                                             Timing.unclear_read_after))
    return Config(
        players=(players[0], players[1]), rules=rules, clock=clock, camera=camera, display=display, gpio=gpio,
        journal_dir=base / _take(path, "paths", p, "journal_dir", str, "journal"),
        record_dir=base / _take(path, "paths", p, "record_dir", str, "matches"),
        timing=timing,
    )
