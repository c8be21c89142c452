"""The host's protocol and the unit's firmware joined by a simulated cable, in simulated time.

No threads, no ports, no clock: ``VirtualLink.run(seconds)`` advances time in
1 ms steps, carrying bytes over two ``Wire``s (with their baud rate and
faults) between a ``HostSession`` and the firmware's ``DisplayUnit``. Every
run with the same seed is the same run, so tests can put the protocol through
thousands of faults and restarts and measure in simulated time.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from firmware_bridge import protocol_core as core
from firmware_bridge.host import HostSession, Timing, next_session
from firmware_bridge.state import DisplayState
from hardware.sim.cable import Faults, Wire
from hardware.sim.display_unit import RecordedUnit, Snapshot

STEP = 0.001


class VirtualLink:
    """A host session and a simulated unit on a cable of ``baudrate`` with ``faults``."""

    def __init__(
        self,
        *,
        faults: Faults | None = None,
        seed: int = 0,
        baudrate: int | None = 115200,
        timing: Timing = Timing(),
        config: dict | None = None,
    ):
        self.faults = faults if faults is not None else Faults()
        self.timing = timing
        self.config = config
        rng = random.Random(seed)
        self.to_unit = Wire(baudrate, self.faults, rng)
        self.to_host = Wire(baudrate, self.faults, rng)
        self.now = 0.0
        self.display = DisplayState()
        self.events: list = []  # everything the host sessions reported, in order
        self.device = RecordedUnit(0, config, core.BOOT_POWER_ON, 1)
        self._session_id = 0
        self.host = self._new_host()

    @property
    def unit(self):
        return self.device.unit

    def snapshot(self) -> Snapshot:
        return self.device.snapshot()

    def _ms(self) -> int:
        return round(self.now * 1000)

    def _new_host(self) -> HostSession:
        self._session_id = next_session(self._session_id)
        return HostSession(self.display, self.now, self._session_id, "virtual", self.timing)

    def step(self) -> None:
        """One millisecond of both ends and the cable."""
        now, ms = self.now, self._ms()
        data = self.to_unit.receive(now)
        if data:
            self.unit.receive(data, ms)
        out = self.unit.step(ms)
        if out:
            self.to_host.send(out, now)
        data = self.to_host.receive(now)
        if data:
            self.host.receive(data, now)
        out = self.host.transmit(now)
        if out:
            self.to_unit.send(out, now)
        self.events.extend(self.host.events)
        self.host.events.clear()
        if self.host.failed:  # what DisplayLink does: close the port, open it again
            self.replug(power_cycle=False)
        self.now = round(now + STEP, 6)

    def run(self, seconds: float) -> None:
        for _ in range(round(seconds / STEP)):
            self.step()

    def run_until(self, predicate: Callable[[VirtualLink], bool], limit: float) -> float | None:
        """Run until ``predicate(self)`` holds; the simulated seconds it took, or None past ``limit``."""
        start = self.now
        while self.now - start <= limit:
            if predicate(self):
                return self.now - start
            self.step()
        return None

    def reset_unit(self, reason: int = core.BOOT_SOFT) -> None:
        """The unit restarts; the cable stays."""
        self.device = RecordedUnit(self._ms(), self.config, reason, self.device.boots + 1)

    def replug(self, power_cycle: bool = True) -> None:
        """The port closes and opens again: bytes in transit are lost, the host starts a new session;
        with ``power_cycle`` the unit restarts too (a USB unit loses power when unplugged)."""
        self.to_unit.clear()
        self.to_host.clear()
        self.host.close(self.now)
        self.events.extend(self.host.events)
        self.host = self._new_host()
        if power_cycle:
            self.device = RecordedUnit(self._ms(), self.config, core.BOOT_POWER_ON, self.device.boots + 1)
