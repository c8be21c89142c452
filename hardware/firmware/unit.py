"""The display unit's firmware logic, the same under MicroPython on the unit and CPython in tests.

``DisplayUnit`` is fed the bytes that arrive on its serial port and the
presses of its buttons, and is stepped with the time; it answers with the
bytes to send back and drives three small device objects:

* ``display.show(rows)`` -- the text rows of the screen (``rows`` strings of at most ``cols``);
* ``strip.show(pixels)`` -- one ``(r, g, b)`` per LED of the strip along the board edge;
* ``buzzer.tone(frequency)`` -- sound at ``frequency`` Hz, silence at 0.

``main.py`` binds them to an SSD1306 OLED, a WS2812 strip and a PWM buzzer;
``hardware/sim/display_unit.py`` to recorders drawn on a terminal.

The screen has a match panel above the text lines: the score and match
length, the cube and Crawford, the two clocks (the running one counted down
here, between the host's updates). Until a host has spoken it shows a
waiting screen; when the host falls silent for ``host_silence_ms`` the top
row says NO LINK, so stale information is never taken for current.

Like ``protocol_core`` this module keeps to what MicroPython runs: no
annotations, dataclasses or f-strings, no reliance on dict order.
"""

try:
    import protocol_core as core  # on the unit: copied next to this file by the firmware build
except ImportError:
    from firmware_bridge import protocol_core as core

FIRMWARE_VERSION = (1, 0)

DEFAULT_CONFIG = {
    "rows": 8,  # screen rows (SSD1306 128x64 with the 8x8 font)
    "cols": 16,  # screen columns
    "text_rows": 5,  # rows for the host's text, at the bottom; the rest is the match panel
    "strip_length": 27,  # LEDs on the strip (0 = no strip)
    # Strip index of each light location (index 0 unused): points 1..24, bar, White's tray, Black's tray.
    "pixel_map": [-1] + list(range(27)),
    "brightness": 64,  # 0..255: the strip's colours are scaled by brightness/255
    "buzzer": True,
    "buttons": (1, 2, 3),  # the button ids fitted: accept, undo, menu
    "blink_ms": 300,  # half-period of a blinking light
    "host_silence_ms": 3000,
    "boot_repeat_ms": 250,  # at most one BOOT per this while unsynchronised
    "window": 8,
    "rto_ms": 150,  # first and longest retransmission timeout; adapts down to rto_min_ms
    "rto_min_ms": 20,
    "tries": 30,
}


def ascii_row(text, cols):
    """``text`` as the display's font can draw it: printable ASCII, '?' for the rest, cut to ``cols``."""
    out = []
    for ch in text[:cols]:
        code = ord(ch)
        out.append(ch if 32 <= code < 127 else "?")
    return "".join(out)


def spread(left, right, cols):
    """``left`` and ``right`` at the two ends of a ``cols`` wide row."""
    gap = cols - len(left) - len(right)
    if gap < 1:
        return (left + " " + right)[:cols]
    return left + " " * gap + right


def centre(text, cols):
    """``text`` in the middle of a ``cols`` wide row."""
    return " " * max(0, (cols - len(text)) // 2) + text


def clock_text(seconds):
    """Remaining whole seconds as m:ss."""
    return "%d:%02d" % (seconds // 60, seconds % 60)


class Debouncer:
    """Turns a sampled button level into presses: a press is a level held down ``stable_ms``."""

    def __init__(self, stable_ms=30):
        self.stable_ms = stable_ms
        self._down = False
        self._candidate = False
        self._since = 0

    def sample(self, down, now):
        """True exactly once per press, when the button has been down ``stable_ms``."""
        if down != self._candidate:
            self._candidate = down
            self._since = now
            return False
        if down != self._down and now - self._since >= self.stable_ms:
            self._down = down
            return down
        return False


class DisplayUnit:
    """The unit's side of the protocol and what its screen, strip and buzzer show."""

    def __init__(self, display, strip, buzzer, now, config=None, boot_reason=core.BOOT_POWER_ON):
        cfg = dict(DEFAULT_CONFIG)
        if config:
            cfg.update(config)
        self.config = cfg
        self.display = display
        self.strip = strip if cfg["strip_length"] else None
        self.buzzer = buzzer if cfg["buzzer"] else None
        self._decoder = core.FrameDecoder()
        self._channel = core.Channel(cfg["window"], cfg["rto_ms"], cfg["tries"], cfg["rto_min_ms"])
        self._out = bytearray()
        self.session = 0
        self.heard_at = None  # when a valid frame last came from the host; None = never
        self._boot_reason = boot_reason
        self._boot_at = None
        self._lost = 0  # messages to the host never acknowledged, not yet reported
        self.text = []
        self.match = None  # decode_match() tuple
        self._match_at = 0
        self.lights = {}  # location -> ((r, g, b), mode)
        self._tone_until = None
        self.rows = None  # what the display shows
        self.pixels = None  # what the strip shows
        self._changes = 0  # counts changes of text, match and lights
        self._screen_key = None  # what the shown rows were composed from
        self._pixels_key = None
        self._faulty = {}  # device name -> True once its fault was reported
        self._announce_boot(now)

    # ------------------------------------------------------------ inputs

    def receive(self, data, now):
        """Bytes from the serial port."""
        for ftype, seq, payload in self._decoder.feed(data):
            self.heard_at = now
            self._frame(ftype, seq, payload, now)

    def press(self, button, now):
        """A debounced press of button ``button`` (a protocol id)."""
        if self.session:
            self._channel.send(core.BUTTON, core.encode_button(button))
        else:
            self._lost += 1  # no referee to tell: reported once a session starts

    def step(self, now):
        """Advance timers and refresh the devices; return the bytes to send."""
        if self._channel.failed:
            self._drop_session(now)
        self._refresh(now)
        out = bytes(self._out)
        self._out = bytearray()
        if self.session:
            out += self._channel.poll(now)
        return out

    # ------------------------------------------------------------ protocol

    def _frame(self, ftype, seq, payload, now):
        if ftype == core.HELLO:
            self._hello(payload)
        elif ftype == core.PING:
            self._control(core.PONG, core.encode_session(self.session))
        elif ftype == core.ACK or core.is_data(ftype):
            if not self.session:
                if ftype != core.ACK:
                    self._announce_boot(now)
                return
            message = self._channel.receive(ftype, seq, payload, now)
            if message is not None:
                self._apply(message[0], message[1], now)

    def _hello(self, payload):
        try:
            session = core.decode_hello(payload)
        except core.VersionMismatch:
            self._welcome(0)  # carries our version: the host reports the mismatch
            return
        except core.ProtocolError:
            return
        if session == 0:
            return
        if session != self.session:
            # Presses not yet sent go out in the new session; those in flight may have arrived.
            self._lost += len(self._channel.reset(True))
            self.session = session
            self._boot_at = None
        self._welcome(session)
        if self._lost:
            self._report(core.ERR_LOST, "%d messages to the referee lost" % self._lost)
            self._lost = 0

    def _welcome(self, session):
        cfg = self.config
        features = 0
        if self.strip is not None:
            features |= core.FEATURE_LIGHTS
        if self.buzzer is not None:
            features |= core.FEATURE_BUZZER
        buttons = 0
        for button in cfg["buttons"]:
            buttons |= 1 << button
        self._control(
            core.WELCOME,
            core.encode_welcome(session, FIRMWARE_VERSION, cfg["text_rows"], cfg["cols"], features, buttons),
        )

    def _drop_session(self, now):
        self._lost += len(self._channel.reset())
        self.session = 0
        self._boot_reason = core.BOOT_SESSION_LOST
        self._announce_boot(now)

    def _announce_boot(self, now):
        if self._boot_at is not None and now - self._boot_at < self.config["boot_repeat_ms"]:
            return
        self._boot_at = now
        self._control(core.BOOT, bytes((self._boot_reason,)))

    def _control(self, ftype, payload):
        self._out.extend(core.encode_frame(ftype, 0, payload))

    def _report(self, code, text):
        self._channel.send(core.ERROR, core.encode_error(code, text[:120]))

    def _apply(self, mtype, payload, now):
        try:
            if mtype == core.TEXT:
                self.text = core.decode_text(payload)
            elif mtype == core.MATCH:
                self.match = core.decode_match(payload)
                self._match_at = now
            elif mtype == core.LIGHTS:
                lights = {}
                for location, rgb, mode in core.decode_lights(payload):
                    lights[location] = (rgb, mode)
                self.lights = lights
            elif mtype == core.CLEAR:
                self.text = []
                self.match = None
                self.lights = {}
            elif mtype == core.BEEP:
                frequency, duration = core.decode_beep(payload)
                self._beep(frequency, duration, now)
            else:
                self._report(core.ERR_UNKNOWN_TYPE, "message type 0x%02x" % mtype)
                return
            self._changes += 1
        except core.ProtocolError as err:
            self._report(core.ERR_MALFORMED, str(err))

    # ------------------------------------------------------------ devices

    def _beep(self, frequency, duration, now):
        if self.buzzer is None:
            return
        if self._device("buzzer", self.buzzer.tone, frequency):
            self._tone_until = now + duration if frequency else None

    def _device(self, name, method, argument):
        """Call a device; report its first failure to the host instead of stopping the unit."""
        try:
            method(argument)
        except OSError as err:
            if name not in self._faulty:
                self._faulty[name] = True
                self._report(core.ERR_DEVICE, "%s: %s" % (name, err))
            return False
        self._faulty.pop(name, None)
        return True

    def _refresh(self, now):
        if self._tone_until is not None and now >= self._tone_until:
            self._tone_until = None
            self._device("buzzer", self.buzzer.tone, 0)
        # Compose only when something shown can have changed: the loop runs every
        # millisecond on the unit, and composing allocates.
        key = (self._changes, self.heard_at is None, self.linked(now), self._clocks(now))
        if key != self._screen_key:
            rows = self.compose(now)
            if rows == self.rows or self._device("display", self.display.show, rows):
                self.rows = rows
                self._screen_key = key
        if self.strip is not None:
            key = (self._changes, self._blink_lit(now))
            if key != self._pixels_key:
                pixels = self.pixel_frame(now)
                if pixels == self.pixels or self._device("strip", self.strip.show, pixels):
                    self.pixels = pixels
                    self._pixels_key = key

    def linked(self, now):
        """Whether the host has been heard from within ``host_silence_ms``."""
        return self.heard_at is not None and now - self.heard_at < self.config["host_silence_ms"]

    def compose(self, now):
        """The screen's rows at ``now``."""
        cfg = self.config
        cols = cfg["cols"]
        if self.heard_at is None:
            rows = ["bgref display", "firmware %d.%d" % FIRMWARE_VERSION, "", "waiting for", "the referee"]
        else:
            panel = self._panel(now, cfg["rows"] - cfg["text_rows"], cols)
            rows = panel + [ascii_row(line, cols) for line in self.text[: cfg["text_rows"]]]
            if not self.linked(now):
                rows[0] = centre("NO LINK", cols)
        rows = rows[: cfg["rows"]]
        while len(rows) < cfg["rows"]:
            rows.append("")
        return rows

    def _panel(self, now, count, cols):
        if count <= 0:
            return []
        lines = []
        match = self.match
        if match is not None and match[0] & core.MATCH_SHOWN:
            flags, white, black, length, cube_log2, owner = match[:6]
            running = match[8]
            lines.append(spread("W %d  B %d" % (white, black), "/%d" % length if length else "money", cols))
            cube = "Cube %d" % (1 << cube_log2)
            if owner:
                cube += " " + "-WB"[owner]
            tag = ""
            if flags & core.MATCH_CRAWFORD:
                tag = "CRAW"
            elif flags & core.MATCH_POST_CRAWFORD:
                tag = "POST"
            lines.append(spread(cube, tag, cols))
            if flags & core.MATCH_CLOCK:
                white_left, black_left = self._clocks(now)
                lines.append(
                    spread(
                        "W" + ("*" if running == core.WHITE_SIDE else " ") + clock_text(white_left),
                        "B" + ("*" if running == core.BLACK_SIDE else " ") + clock_text(black_left),
                        cols,
                    )
                )
        if len(lines) > count:
            joined = " ".join(lines)
            lines = [joined[i * cols : (i + 1) * cols] for i in range(count)]
        while len(lines) < count:
            lines.append("")
        return [ascii_row(line, cols) for line in lines]

    def _clocks(self, now):
        """Both clocks' remaining seconds at ``now``, the running one counted down and rounded
        up (0 means the time is out); None when no clock is shown."""
        match = self.match
        if match is None or not match[0] & core.MATCH_SHOWN or not match[0] & core.MATCH_CLOCK:
            return None
        white_ms, black_ms, running = match[6], match[7], match[8]
        elapsed = now - self._match_at
        if running == core.WHITE_SIDE:
            white_ms -= elapsed
        elif running == core.BLACK_SIDE:
            black_ms -= elapsed
        return (max(0, white_ms) + 999) // 1000, (max(0, black_ms) + 999) // 1000

    def _blink_lit(self, now):
        """Whether blinking lights are in their lit half-period now."""
        return (now // self.config["blink_ms"]) % 2 == 0

    def pixel_frame(self, now):
        """The strip's ``(r, g, b)`` per LED at ``now``: steady lights, blinking ones in phase."""
        cfg = self.config
        length = cfg["strip_length"]
        pixel_map = cfg["pixel_map"]
        scale = cfg["brightness"]
        lit = self._blink_lit(now)
        pixels = [(0, 0, 0)] * length
        for location in self.lights:
            rgb, mode = self.lights[location]
            index = pixel_map[location] if location < len(pixel_map) else -1
            if 0 <= index < length and (mode == core.LIGHT_STEADY or lit):
                pixels[index] = (rgb[0] * scale // 255, rgb[1] * scale // 255, rgb[2] * scale // 255)
        return pixels
