"""The display unit's firmware logic (hardware/firmware/unit.py), its device entry and its build."""

from __future__ import annotations

import importlib
import io
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from firmware_bridge import protocol_core as core
from hardware.firmware import deploy
from hardware.firmware.unit import Debouncer, clock_text
from hardware.sim.display_unit import RecordedUnit

SESSION = 300


def frames(data: bytes) -> list[tuple[int, int, bytes]]:
    return core.FrameDecoder().feed(data)


def types_of(data: bytes) -> list[int]:
    """The frame types in ``data``, a fragmented message counted once (at its last fragment)."""
    return [ftype for ftype, _, _ in frames(data) if not ftype & core.MORE]


def error_in(data: bytes) -> tuple[int, str]:
    """The (code, text) of the ERROR message in ``data``, reassembled from its fragments."""
    payload = b"".join(p for t, _, p in frames(data) if t & core.TYPE_MASK == core.ERROR)
    return core.decode_error(payload)


class Bench:
    """A unit with recording devices, fed frames by hand, in milliseconds."""

    def __init__(self, config: dict | None = None, reason: int = core.BOOT_POWER_ON):
        self.device = RecordedUnit(0, config, reason, 1)
        self.unit = self.device.unit
        self.now = 0
        self.seq = 0
        self.boot = self.unit.step(0)

    def send(self, ftype: int, payload: bytes = b"", seq: int = 0, at: int | None = None) -> bytes:
        self.now = self.now + 1 if at is None else at
        self.unit.receive(core.encode_frame(ftype, seq, payload), self.now)
        return self.unit.step(self.now)

    def hello(self, session: int = SESSION) -> bytes:
        return self.send(core.HELLO, core.encode_hello(session))

    def message(self, mtype: int, payload: bytes) -> bytes:
        """One data message, fragmented like the host does it."""
        out = b""
        chunks = [payload[i : i + core.MAX_FRAGMENT] for i in range(0, max(1, len(payload)), core.MAX_FRAGMENT)]
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            out += self.send(mtype if last else mtype | core.MORE, chunk, seq=self.seq)
            self.seq = (self.seq + 1) % 256
        return out

    def at(self, ms: int) -> bytes:
        self.now = ms
        return self.unit.step(ms)


def test_a_new_unit_announces_itself_and_waits_for_the_referee():
    bench = Bench(reason=core.BOOT_WATCHDOG)
    assert frames(bench.boot) == [(core.BOOT, 0, bytes((core.BOOT_WATCHDOG,)))]
    assert bench.device.screen.rows[:5] == ("bgref display", "firmware 1.0", "", "waiting for", "the referee")
    assert bench.device.strip.pixels == ((0, 0, 0),) * 27


def test_hello_starts_a_session_and_welcome_says_what_the_unit_has():
    bench = Bench(config={"buttons": (1, 3), "buzzer": False})
    ((ftype, _, payload),) = frames(bench.hello())
    assert ftype == core.WELCOME
    assert core.decode_welcome(payload) == (SESSION, (1, 0), 5, 16, core.FEATURE_LIGHTS, 0b1010)
    assert bench.unit.session == SESSION


def test_a_repeated_hello_keeps_the_session_and_a_new_one_restarts_it():
    bench = Bench()
    bench.hello()
    bench.message(core.TEXT, core.encode_text(["kept"]))
    assert types_of(bench.hello()) == [core.WELCOME]
    bench.unit.press(2, bench.now)
    sent = bench.at(bench.now + 1)
    assert types_of(sent) == [core.BUTTON]
    out = bench.hello(SESSION + 1)  # the BUTTON was in flight: it may have arrived, so it is reported
    assert types_of(out) == [core.WELCOME, core.ERROR]
    code, text = error_in(out)
    assert code == core.ERR_LOST and text.startswith("1 ")
    assert bench.unit.text == ["kept"]  # a new session does not blank the screen


def test_a_hello_of_another_version_is_answered_without_a_session():
    bench = Bench()
    out = bench.send(core.HELLO, bytes((core.PROTOCOL_VERSION + 1, 0, 9)))
    ((ftype, _, payload),) = frames(out)
    assert ftype == core.WELCOME and payload[0] == core.PROTOCOL_VERSION
    assert bench.unit.session == 0


def test_data_without_a_session_gets_boot_at_most_every_250_ms():
    bench = Bench()
    assert types_of(bench.send(core.TEXT, core.encode_text(["x"]), at=100)) == []  # BOOT at 0 still counts
    assert types_of(bench.send(core.TEXT, core.encode_text(["x"]), at=260)) == [core.BOOT]
    assert types_of(bench.send(core.TEXT, core.encode_text(["x"]), at=300)) == []
    assert bench.unit.text == []


def test_ping_is_answered_with_the_session():
    bench = Bench()
    assert frames(bench.send(core.PING)) == [(core.PONG, 0, core.encode_session(0))]
    bench.hello()
    assert frames(bench.send(core.PING)) == [(core.PONG, 0, core.encode_session(SESSION))]


def test_the_screen_shows_match_panel_and_text():
    bench = Bench()
    bench.hello()
    flags = core.MATCH_SHOWN | core.MATCH_CRAWFORD | core.MATCH_CLOCK
    out = bench.message(
        core.MATCH, core.encode_match(flags, 4, 6, 7, 1, core.BLACK_SIDE, 754_000, 61_500, core.WHITE_SIDE)
    )
    assert frames(out)[-1] == (core.ACK, bench.seq, b"")  # both fragments
    bench.message(core.TEXT, core.encode_text(["Illegal move: 13/7", "é", "3", "4", "5", "6 is cut"]))
    assert bench.device.screen.rows == (
        "W 4  B 6      /7",
        "Cube 2 B    CRAW",
        "W*12:34   B 1:02",
        "Illegal move: 13",
        "?",
        "3",
        "4",
        "5",
    )
    money = core.encode_match(core.MATCH_SHOWN | core.MATCH_POST_CRAWFORD, 12, 0, 0, 0, 0, 0, 0, 0)
    bench.message(core.MATCH, money)
    assert bench.device.screen.rows[:3] == ("W 12  B 0  money", "Cube 1      POST", "")


def test_the_running_clock_counts_down_on_the_unit():
    bench = Bench()
    bench.hello()
    flags = core.MATCH_SHOWN | core.MATCH_CLOCK
    bench.message(core.MATCH, core.encode_match(flags, 0, 0, 5, 0, 0, 10_000, 5_000, core.BLACK_SIDE))
    start = bench.now
    assert bench.device.screen.rows[2] == "W 0:10    B*0:05"
    bench.at(start + 1)
    assert bench.device.screen.rows[2] == "W 0:10    B*0:05"
    bench.at(start + 4_001)
    assert bench.device.screen.rows[2] == "W 0:10    B*0:01"
    bench.at(start + 9_000)
    assert bench.device.screen.rows[2] == "W 0:10    B*0:00"
    assert [clock_text(s) for s in (0, 1, 59, 60, 3600)] == ["0:00", "0:01", "0:59", "1:00", "60:00"]


def test_the_unit_redraws_only_when_what_it_shows_changes():
    class CountingScreen:
        shows = 0

        def show(self, rows):
            self.shows += 1

    class CountingStrip(CountingScreen):
        pass

    bench = Bench()
    bench.unit.display, bench.unit.strip = CountingScreen(), CountingStrip()
    bench.hello()
    bench.message(core.TEXT, core.encode_text(["steady"]))
    bench.message(core.LIGHTS, core.encode_lights([(4, (9, 9, 9), core.LIGHT_STEADY)]))
    start, screen, strip = bench.now, bench.unit.display.shows, bench.unit.strip.shows
    for ms in range(start, start + 1000):
        bench.at(ms)
    assert (bench.unit.display.shows, bench.unit.strip.shows) == (screen, strip)
    bench.message(core.LIGHTS, core.encode_lights([(4, (9, 9, 9), core.LIGHT_BLINK)]))
    flags = core.MATCH_SHOWN | core.MATCH_CLOCK
    bench.message(core.MATCH, core.encode_match(flags, 0, 0, 0, 0, 0, 60_000, 60_000, core.WHITE_SIDE))
    start, screen, strip = bench.now, bench.unit.display.shows, bench.unit.strip.shows
    for ms in range(start + 1, start + 2500):
        bench.at(ms)
    assert bench.unit.display.shows - screen == 2  # once a second, for the running clock
    half_periods = sum(1 for ms in range(start + 1, start + 2500) if ms % 300 == 0)
    assert bench.unit.strip.shows - strip == half_periods  # for the blinking light


def test_a_one_row_panel_squeezes_the_match_into_it():
    bench = Bench(config={"rows": 4, "cols": 20, "text_rows": 3})
    bench.hello()
    bench.message(core.MATCH, core.encode_match(core.MATCH_SHOWN, 1, 2, 3, 2, core.WHITE_SIDE, 0, 0, 0))
    assert bench.device.screen.rows[0] == "W 1  B 2          /3"


def test_lights_blink_in_phase_steady_ones_stay_and_brightness_scales():
    bench = Bench(config={"brightness": 255, "pixel_map": [-1] + list(range(26, -1, -1))})
    bench.hello()
    lights = [(1, (255, 0, 0), core.LIGHT_BLINK), (core.LOC_BAR, (0, 255, 0), core.LIGHT_STEADY)]
    bench.message(core.LIGHTS, core.encode_lights(lights))
    bench.at(600)  # 600 // 300 is even: blinking lights lit
    pixels = bench.device.strip.pixels
    assert pixels[26] == (255, 0, 0) and pixels[2] == (0, 255, 0)
    assert sum(1 for p in pixels if p != (0, 0, 0)) == 2
    bench.at(900)
    assert bench.device.strip.pixels[26] == (0, 0, 0) and bench.device.strip.pixels[2] == (0, 255, 0)
    dim = Bench()
    dim.hello()
    dim.message(core.LIGHTS, core.encode_lights([(5, (255, 128, 0), core.LIGHT_STEADY)]))
    assert dim.device.strip.pixels[4] == (64, 32, 0)


def test_clear_blanks_everything_and_beep_sounds_for_its_duration():
    bench = Bench()
    bench.hello()
    bench.message(core.TEXT, core.encode_text(["x"]))
    bench.message(core.LIGHTS, core.encode_lights([(3, (1, 2, 3), 0)]))
    bench.message(core.CLEAR, b"")
    assert bench.unit.text == [] and bench.unit.lights == {} and bench.unit.match is None
    assert set(bench.device.strip.pixels) == {(0, 0, 0)}
    bench.message(core.BEEP, core.encode_beep(1500, 200))
    start = bench.now
    assert bench.device.buzzer.frequency == 1500 and bench.device.buzzer.beeps == 1
    bench.at(start + 199)
    assert bench.device.buzzer.frequency == 1500
    bench.at(start + 200)
    assert bench.device.buzzer.frequency == 0


def test_no_link_shows_when_the_host_falls_silent():
    bench = Bench()
    bench.hello()
    bench.message(core.TEXT, core.encode_text(["current"]))
    heard = bench.now
    bench.at(heard + 2999)
    assert bench.device.screen.rows[0] != "    NO LINK"
    bench.at(heard + 3000)
    assert bench.device.screen.rows[0] == "    NO LINK"
    assert bench.device.screen.rows[3] == "current"
    bench.send(core.PING)
    assert bench.device.screen.rows[0] == ""


def test_button_presses_are_sent_and_presses_without_a_referee_are_reported():
    bench = Bench()
    bench.unit.press(1, 5)  # nobody to tell
    out = bench.hello()
    assert types_of(out) == [core.WELCOME, core.ERROR]
    assert error_in(out)[0] == core.ERR_LOST
    bench.unit.press(3, bench.now)
    out = bench.at(bench.now + 1)
    ((ftype, seq, payload),) = frames(out)
    assert (ftype, seq, core.decode_button(payload)) == (core.BUTTON, 2, 3)  # after the ERROR's two


def test_bad_messages_are_acknowledged_and_reported():
    bench = Bench()
    bench.hello()
    out = bench.message(core.MATCH, b"\x01\x02")
    assert types_of(out) == [core.ACK, core.ERROR]
    assert error_in(out)[0] == core.ERR_MALFORMED
    bench.at(bench.now + 1000)  # let the first ERROR's retransmissions pass
    out = bench.message(0x3F, b"from a newer host")
    assert types_of(out)[0] == core.ACK
    assert error_in(out) == (core.ERR_UNKNOWN_TYPE, "message type 0x3f")


def test_a_device_fault_is_reported_once_and_the_unit_carries_on():
    class FailingScreen:
        def __init__(self):
            self.fail = True
            self.rows = ()

        def show(self, rows):
            if self.fail:
                raise OSError(5, "EIO")
            self.rows = tuple(rows)

    bench = Bench()
    screen = FailingScreen()
    bench.unit.display = screen
    out = bench.hello()
    assert types_of(out) == [core.WELCOME, core.ERROR]
    code, text = error_in(out)
    assert code == core.ERR_DEVICE and text.startswith("display: ")
    out = bench.message(core.TEXT, core.encode_text(["still"]))
    assert core.ERROR not in types_of(out)
    screen.fail = False
    bench.at(bench.now + 1)
    assert screen.rows[3] == "still"


def test_a_unit_whose_messages_go_unacknowledged_drops_its_session():
    bench = Bench(config={"tries": 3, "rto_ms": 100})
    bench.hello()
    bench.unit.press(1, bench.now)
    start = bench.now
    out = b"".join(bench.at(ms) for ms in range(start, start + 401, 10))
    assert bench.unit.session == 0
    assert types_of(out) == [core.BUTTON] * 3 + [core.BOOT]
    assert frames(out)[-1] == (core.BOOT, 0, bytes((core.BOOT_SESSION_LOST,)))
    out = bench.hello(SESSION + 5)
    assert error_in(out)[0] == core.ERR_LOST


def test_debouncer_reports_one_press_per_stable_press():
    debouncer = Debouncer(stable_ms=30)
    samples = [(0, True), (5, False), (10, True), (39, True), (40, True), (45, True), (100, False), (200, False)]
    presses = [t for t, down in samples if debouncer.sample(down, t)]
    assert presses == [40]
    assert debouncer.sample(True, 300) is False and debouncer.sample(True, 330) is True


# ---------------------------------------------------------------- main.py, the device entry


class FakeDriver:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append((name, *args))


@pytest.fixture
def device_main(monkeypatch):
    """main.py imported with stand-ins for MicroPython's hardware modules."""
    machine = types.ModuleType("machine")
    machine.WDT_RESET, machine.PWRON_RESET, machine.SOFT_RESET = 3, 1, 5
    machine.reset_cause = lambda: machine.PWRON_RESET
    fakes = {
        "machine": machine,
        "micropython": types.ModuleType("micropython"),
        "neopixel": types.ModuleType("neopixel"),
        "ssd1306": types.ModuleType("ssd1306"),
    }
    for name, module in fakes.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "hardware.firmware.main", raising=False)
    main = importlib.import_module("hardware.firmware.main")
    yield main
    sys.modules.pop("hardware.firmware.main", None)


def test_device_adapters_drive_the_micropython_drivers(device_main):
    oled = FakeDriver()
    device_main.Oled(oled).show(["ab", "cd"])
    assert oled.calls == [("fill", 0), ("text", "ab", 0, 0, 1), ("text", "cd", 0, 8, 1), ("show",)]

    class Pixels(list):
        written = 0

        def write(self):
            self.written += 1

    pixels = Pixels([None] * 3)
    device_main.Strip(pixels).show([(1, 2, 3), (0, 0, 0), (9, 9, 9)])
    assert pixels == [(1, 2, 3), (0, 0, 0), (9, 9, 9)] and pixels.written == 1
    pwm = FakeDriver()
    buzzer = device_main.Buzzer(pwm)
    buzzer.tone(2000)
    buzzer.tone(0)
    assert pwm.calls == [("freq", 2000), ("duty_u16", 32768), ("duty_u16", 0)]


def test_device_clock_never_wraps(device_main, monkeypatch):
    ticks = iter([2**30 - 10, 2**30 - 5, 3, 20])
    period = 2**30
    fake_time = types.SimpleNamespace(
        ticks_ms=lambda: next(ticks),
        ticks_diff=lambda a, b: (a - b + period // 2) % period - period // 2,
    )
    monkeypatch.setattr(device_main, "time", fake_time)
    clock = device_main.Clock()
    assert [clock.ms(), clock.ms(), clock.ms()] == [5, 13, 30]


def test_device_boot_reason(device_main, monkeypatch):
    machine = sys.modules["machine"]
    for cause, reason in ((3, core.BOOT_WATCHDOG), (5, core.BOOT_SOFT), (1, core.BOOT_POWER_ON)):
        monkeypatch.setattr(machine, "reset_cause", lambda cause=cause: cause)
        assert device_main.boot_reason() == reason


def test_device_main_loop_answers_hello_over_usb(device_main, monkeypatch):
    """run() with every MicroPython module faked: a HELLO on stdin gets a WELCOME on stdout."""
    machine = sys.modules["machine"]

    class Stop(Exception):
        pass

    feeds = []

    class WDT:
        def __init__(self, timeout):
            assert timeout == device_main.WATCHDOG_MS

        def feed(self):
            feeds.append(1)
            if len(feeds) > 20:
                raise Stop

    class Pin:
        IN, PULL_UP = 0, 1

        def __init__(self, number, *args):
            self.number = number

        def value(self):
            return 1  # released

    machine.WDT, machine.Pin = WDT, Pin
    machine.I2C = lambda *args, **kwargs: "i2c"
    machine.PWM = lambda pin: FakeDriver()
    sys.modules["micropython"].kbd_intr = lambda code: feeds.append(("kbd_intr", code))
    sys.modules["ssd1306"].SSD1306_I2C = lambda w, h, i2c, addr: FakeDriver()
    sys.modules["neopixel"].NeoPixel = lambda pin, n: type("P", (list,), {"write": lambda self: None})([None] * n)
    ms = iter(range(0, 10_000, 7))
    monkeypatch.setattr(
        device_main,
        "time",
        types.SimpleNamespace(ticks_ms=lambda: next(ms), ticks_diff=lambda a, b: a - b, sleep_ms=lambda n: None),
    )
    read_fd, write_fd = os.pipe()
    os.write(write_fd, core.encode_frame(core.HELLO, 0, core.encode_hello(42)))
    reader = os.fdopen(read_fd, "rb", buffering=0)
    out = io.BytesIO()
    stdout = types.SimpleNamespace(buffer=out)
    monkeypatch.setattr(device_main, "sys", types.SimpleNamespace(stdin=_Stdin(reader), stdout=stdout))
    try:
        with pytest.raises(Stop):
            device_main.run()
    finally:
        reader.close()
        os.close(write_fd)
    assert feeds[0] == ("kbd_intr", -1)
    sent = frames(out.getvalue())
    assert [f[0] for f in sent] == [core.BOOT, core.WELCOME]
    assert core.decode_welcome(sent[1][2])[0] == 42


class _Stdin:
    """sys.stdin as MicroPython has it: pollable, with the raw bytes on ``buffer``."""

    def __init__(self, raw):
        self.buffer = raw

    def fileno(self):
        return self.buffer.fileno()


# ---------------------------------------------------------------- the firmware build


def test_stage_writes_the_three_files_side_by_side(tmp_path):
    staged = deploy.stage(tmp_path / "fw")
    assert sorted(p.name for p in staged) == ["main.py", "protocol_core.py", "unit.py"]
    for path in staged:
        assert path.read_bytes() == deploy.SOURCES[path.name].read_bytes()
    # On the unit, unit.py finds the core next to it, not in the firmware_bridge package.
    probe = "import unit, sys; print(unit.core.__name__, unit.core.__file__)"
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path / "fw", capture_output=True, text=True, check=True
    )
    name, file = result.stdout.split()
    assert name == "protocol_core" and Path(file).parent == tmp_path / "fw"


def test_install_commands_copy_the_files_and_restart_the_unit():
    files = [Path("a/main.py"), Path("a/unit.py"), Path("a/protocol_core.py")]
    assert deploy.mpremote_commands("/dev/ttyACM0", files, drivers=True) == [
        ["mpremote", "connect", "/dev/ttyACM0", "mip", "install", "ssd1306"],
        ["mpremote", "connect", "/dev/ttyACM0", "fs", "cp", "a/main.py", "a/unit.py", "a/protocol_core.py", ":", "+", "reset"],
    ]  # fmt: skip


def test_deploy_stage_command(tmp_path, capsys):
    assert deploy.main(["--stage", str(tmp_path)]) == 0
    assert len(capsys.readouterr().out.split()) == 3
