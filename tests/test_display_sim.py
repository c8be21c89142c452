"""The simulated display unit: its cable, its faults, its ports and its drawing."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys

import pytest
import serial

from firmware_bridge import protocol_core as core
from hardware.sim.cable import Faults, Wire
from hardware.sim.display_unit import RecordedUnit, SimulatedDisplayUnit

pytestmark = pytest.mark.timeout(60)


# ---------------------------------------------------------------- faults and the cable


def test_fault_rates_are_what_they_say():
    data = bytes(range(256)) * 400
    rng = random.Random(5)
    dropped = Faults(drop=0.05).damage(data, rng)
    assert 0.045 < 1 - len(dropped) / len(data) < 0.055
    corrupted = Faults(corrupt=0.05).damage(data, rng)
    assert len(corrupted) == len(data)
    assert 0.045 < sum(a != b for a, b in zip(data, corrupted)) / len(data) < 0.055
    doubled = Faults(duplicate=0.05).damage(data, rng)
    assert 0.045 < len(doubled) / len(data) - 1 < 0.055


def test_extreme_faults_and_no_faults():
    rng = random.Random(1)
    assert Faults(drop=1.0).damage(b"abc", rng) == b""
    assert Faults(duplicate=1.0).damage(b"abc", rng) == b"aabbcc"
    assert all(a != b for a, b in zip(Faults(corrupt=1.0).damage(b"abc", rng), b"abc"))
    assert Faults().damage(b"abc", rng) == b"abc"
    with pytest.raises(ValueError):
        Faults(drop=0.6, corrupt=0.6)


def test_wire_takes_ten_bit_times_a_byte_and_keeps_order():
    wire = Wire(115200, Faults(), random.Random(0))
    wire.send(b"x" * 1152, 0.0)  # 0.1 s at 115200 baud
    wire.send(b"y", 0.0)
    assert wire.receive(0.0999) == b""
    assert wire.receive(0.1) == b"x" * 1152
    assert wire.next_arrival() == pytest.approx(0.1 + 10 / 115200)
    assert wire.receive(1.0) == b"y"
    assert wire.next_arrival() is None


def test_delayed_chunks_never_overtake():
    wire = Wire(None, Faults(delay=1.0, max_delay=0.05), random.Random(3))
    for i in range(20):
        wire.send(bytes([i]), i * 0.001)
    assert wire.receive(10.0) == bytes(range(20))
    wire.send(b"late", 10.0)
    assert wire.next_arrival() > 10.0
    wire.clear()
    assert wire.receive(11.0) == b""


# ---------------------------------------------------------------- drawing


def test_snapshot_renders_screen_and_lights_as_a_board():
    device = RecordedUnit(0, None, core.BOOT_POWER_ON, 1)
    unit = device.unit
    unit.receive(core.encode_frame(core.HELLO, 0, core.encode_hello(1)), 1)
    unit.receive(core.encode_frame(core.TEXT, 0, core.encode_text(["Hi"])), 2)
    lights = [(24, (255, 0, 0), 1), (1, (0, 255, 0), 0), (core.LOC_BAR, (255, 120, 0), 0), (core.LOC_BLACK_TRAY, (255, 255, 255), 0)]
    payload = core.encode_lights(lights)
    unit.receive(core.encode_frame(core.LIGHTS | core.MORE, 1, payload[:16]) + core.encode_frame(core.LIGHTS, 2, payload[16:]), 3)
    unit.step(3)
    assert device.snapshot().render().splitlines() == [
        "+----------------+",
        "|                |",
        "|                |",
        "|                |",
        "|Hi              |",
        "|                |",
        "|                |",
        "|                |",
        "|                |",
        "+----------------+",
        "13 14 15 16 17 18 |BAR| 19 20 21 22 23 24",
        " .  .  .  .  .  . | A |  .  .  .  .  .  r",
        " .  .  .  .  .  . |   |  .  .  .  .  .  G",
        "12 11 10  9  8  7 |   |  6  5  4  3  2  1",
        "White tray .  Black tray W  buzzer off",
    ]


# ---------------------------------------------------------------- ports


def read_until(port: serial.Serial, ftype: int, payload: bytes | None = None) -> list:
    """Frames from ``port`` up to the first of type ``ftype`` (and ``payload``, if given)."""
    decoder = core.FrameDecoder()
    got: list = []
    while not any(f[0] == ftype and payload in (None, f[2]) for f in got):
        data = port.read(port.in_waiting or 1)
        assert data, f"timed out with {got}"
        got += decoder.feed(data)
    return got


def test_the_pty_is_raw_so_control_bytes_pass_untouched(tmp_path):
    with SimulatedDisplayUnit(link=tmp_path / "tty0", baudrate=None) as unit:
        with serial.serial_for_url(unit.url, timeout=2) as port:
            session = 0x0D03  # CR and Ctrl-C in the frame: a cooked tty would eat or turn them
            port.write(core.encode_frame(core.HELLO, 0, core.encode_hello(session)) + b"\x11\x13\x0a\x0d")
            (welcome,) = [f for f in read_until(port, core.WELCOME) if f[0] == core.WELCOME]
            assert core.decode_welcome(welcome[2])[0] == session


def test_reset_and_replug_under_a_new_name(tmp_path):
    with SimulatedDisplayUnit(link=tmp_path / "ttyACM0", baudrate=None) as unit:
        assert os.path.realpath(unit.url).startswith("/dev/pts/")
        with serial.serial_for_url(unit.url, timeout=2) as port:
            unit.reset()
            soft = bytes((core.BOOT_SOFT,))
            assert read_until(port, core.BOOT, soft)[-1] == (core.BOOT, 0, soft)
            unit.unplug()
            assert not (tmp_path / "ttyACM0").exists()
            with pytest.raises(serial.SerialException):
                port.read(1)
        unit.replug(new_name=True)
        assert unit.url == str(tmp_path / "ttyACM1") and not (tmp_path / "ttyACM0").exists()
        assert unit.snapshot().boots == 3
        with serial.serial_for_url(unit.url, timeout=2) as port:
            port.write(core.encode_frame(core.PING, 0))
            assert read_until(port, core.PONG)[-1] == (core.PONG, 0, core.encode_session(0))


def test_tcp_unit_serves_one_connection_at_a_time():
    with SimulatedDisplayUnit(transport="tcp", baudrate=None) as unit:
        host, port_number = unit.url.removeprefix("socket://").split(":")
        first = socket.create_connection((host, int(port_number)))
        second = socket.create_connection((host, int(port_number)))
        second.settimeout(2)
        second.sendall(core.encode_frame(core.PING, 0))
        assert core.FrameDecoder().feed(second.recv(64)) == [(core.PONG, 0, core.encode_session(0))]
        first.settimeout(2)
        heard = b""
        while chunk := first.recv(64):  # perhaps the unit's BOOT, then the end: replaced by the newer one
            heard += chunk
        assert all(f[0] == core.BOOT for f in core.FrameDecoder().feed(heard))  # never the PONG
        first.close()
        second.close()
        unit.unplug()
        try:
            probe = socket.create_connection((host, int(port_number)), timeout=1)
        except OSError:
            return  # refused: the unit's port is gone
        # the freed port number was taken by another program, or the probe connected to
        # itself (the kernel may pick the freed number as its own): it must not be the unit
        with probe:
            probe.settimeout(1)
            try:
                probe.sendall(core.encode_frame(core.PING, 0))
                reply = probe.recv(64)
            except OSError:
                reply = b""
            assert not any(f[0] in (core.PONG, core.BOOT) for f in core.FrameDecoder().feed(reply))


def test_pressing_an_unknown_button_is_refused():
    with SimulatedDisplayUnit() as unit, pytest.raises(ValueError, match="unknown button 'start'"):
        unit.press("start")


def test_command_line_simulator_prints_its_port_and_quits():
    result = subprocess.run(
        [sys.executable, "-m", "hardware.sim.display_unit", "--baud", "9600"],
        input="q\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0
    assert "/dev/pts/" in result.stdout and "|BAR|" in result.stdout


def test_the_unit_survives_being_replugged_while_it_waits():
    with SimulatedDisplayUnit(baudrate=None) as unit:
        for _ in range(200):
            unit.replug()  # closes the port the unit's thread may be waiting on
        with serial.serial_for_url(unit.url, timeout=2) as port:
            port.write(core.encode_frame(core.PING, 0))
            assert read_until(port, core.PONG)[-1][0] == core.PONG
