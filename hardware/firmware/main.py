"""The display unit's entry point: a Raspberry Pi Pico running MicroPython.

Wiring (change PINS below to match yours):

* SSD1306 128x64 OLED on I2C0: SDA to GP4, SCL to GP5, address 0x3C;
* WS2812 (NeoPixel) strip along the board edge, data to GP16, one LED per
  point in the order of ``unit.DEFAULT_CONFIG["pixel_map"]`` (points 1..24,
  bar, White's tray, Black's tray);
* passive buzzer between GP15 and ground;
* ACCEPT, UNDO and MENU push buttons between GP10, GP11, GP12 and ground
  (internal pull-ups: pressed reads 0).

The protocol runs over the USB serial port (``/dev/ttyACM0`` on the Pi).
Ctrl-C handling is switched off, since a frame may contain byte 0x03. A
watchdog restarts a hung unit; the host sees the restart and restores the
screen. Deploy with ``python -m hardware.firmware.deploy`` (docs/protocol.md).

Only this file touches the MicroPython hardware modules; everything it
drives is in ``unit.py``.
"""

import select
import sys
import time

import machine
import micropython
import neopixel
import ssd1306

try:
    import unit  # on the unit: copied next to this file by the firmware build
except ImportError:
    from hardware.firmware import unit

PINS = {"sda": 4, "scl": 5, "strip": 16, "buzzer": 15, "accept": 10, "undo": 11, "menu": 12}
OLED_ADDRESS = 0x3C
WATCHDOG_MS = 5000
READ_LIMIT = 128  # bytes taken from USB per loop turn, so buttons and screen stay responsive


class Oled:
    """``unit``'s display on an SSD1306: one 8-pixel row of text per screen row."""

    def __init__(self, driver):
        self.driver = driver

    def show(self, rows):
        self.driver.fill(0)
        for index, row in enumerate(rows):
            self.driver.text(row, 0, index * 8, 1)
        self.driver.show()


class Strip:
    """``unit``'s strip on a NeoPixel chain."""

    def __init__(self, pixels):
        self.pixels = pixels

    def show(self, colours):
        for index, colour in enumerate(colours):
            self.pixels[index] = colour
        self.pixels.write()


class Buzzer:
    """``unit``'s buzzer: a square wave at half duty on a PWM pin."""

    def __init__(self, pwm):
        self.pwm = pwm

    def tone(self, frequency):
        if frequency:
            self.pwm.freq(frequency)
            self.pwm.duty_u16(32768)
        else:
            self.pwm.duty_u16(0)


class UsbSerial:
    """Non-blocking reads from the USB serial port, via ``select.poll`` on stdin."""

    def __init__(self, source, reader, writer):
        self._poll = select.poll()
        self._poll.register(source, select.POLLIN)
        self._reader = reader
        self._writer = writer

    def read(self):
        data = bytearray()
        while len(data) < READ_LIMIT and self._poll.poll(0):
            byte = self._reader.read(1)
            if not byte:
                break
            data.extend(byte)
        return data

    def write(self, data):
        self._writer.write(data)


class Clock:
    """Milliseconds since start that never wrap (``time.ticks_ms`` wraps after 2**30 ms)."""

    def __init__(self):
        self._last = time.ticks_ms()
        self._ms = 0

    def ms(self):
        now = time.ticks_ms()
        self._ms += time.ticks_diff(now, self._last)
        self._last = now
        return self._ms


def boot_reason():
    """Why the unit started, as a BOOT reason code."""
    cause = machine.reset_cause()
    if cause == getattr(machine, "WDT_RESET", None):
        return unit.core.BOOT_WATCHDOG
    if cause == getattr(machine, "SOFT_RESET", None):
        return unit.core.BOOT_SOFT
    return unit.core.BOOT_POWER_ON


def run():
    micropython.kbd_intr(-1)
    watchdog = machine.WDT(timeout=WATCHDOG_MS)
    clock = Clock()
    i2c = machine.I2C(0, sda=machine.Pin(PINS["sda"]), scl=machine.Pin(PINS["scl"]), freq=400000)
    display = Oled(ssd1306.SSD1306_I2C(128, 64, i2c, addr=OLED_ADDRESS))
    length = unit.DEFAULT_CONFIG["strip_length"]
    strip = Strip(neopixel.NeoPixel(machine.Pin(PINS["strip"]), length))
    pwm = machine.PWM(machine.Pin(PINS["buzzer"]))
    pwm.duty_u16(0)
    buttons = []
    for button_id, name in enumerate(unit.core.BUTTON_NAMES):
        if name:
            pin = machine.Pin(PINS[name], machine.Pin.IN, machine.Pin.PULL_UP)
            buttons.append((button_id, pin, unit.Debouncer()))
    port = UsbSerial(sys.stdin, sys.stdin.buffer, sys.stdout.buffer)
    device = unit.DisplayUnit(display, strip, Buzzer(pwm), clock.ms(), None, boot_reason())
    while True:
        watchdog.feed()
        now = clock.ms()
        data = port.read()
        if data:
            device.receive(data, now)
        for button_id, pin, debouncer in buttons:
            if debouncer.sample(pin.value() == 0, now):
                device.press(button_id, now)
        out = device.step(now)
        if out:
            port.write(out)
        time.sleep_ms(1)


if __name__ == "__main__":
    run()
