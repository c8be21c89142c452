"""A simulated serial cable: bytes take their time at the baud rate and can be damaged.

``Faults`` says how bytes are damaged; ``Wire`` is one direction of the cable.
Both the display unit simulator (real time, on a pty or socket) and the
simulated-time link in ``hardware.sim.virtual_link`` carry their bytes over
``Wire``s, so a fault means the same thing in both.
"""

from __future__ import annotations

import collections
import random
from dataclasses import dataclass


@dataclass
class Faults:
    """Per-byte probabilities of damage, and of holding a chunk back.

    Each byte is dropped with probability ``drop``, replaced by another value
    with ``corrupt``, sent twice with ``duplicate``; each chunk written is
    delayed by up to ``max_delay`` seconds with probability ``delay`` (bytes
    never overtake each other). Change the fields at any time.
    """

    drop: float = 0.0
    corrupt: float = 0.0
    duplicate: float = 0.0
    delay: float = 0.0
    max_delay: float = 0.05

    def __post_init__(self) -> None:
        if self.drop + self.corrupt + self.duplicate > 1 or min(self.drop, self.corrupt, self.duplicate) < 0:
            raise ValueError("fault probabilities must be >= 0 and sum to at most 1")
        if not 0 <= self.delay <= 1 or self.max_delay < 0:
            raise ValueError("delay must be a probability and max_delay >= 0")

    def damage(self, data: bytes, rng: random.Random) -> bytes:
        """``data`` after dropping, corrupting and duplicating bytes."""
        if not (self.drop or self.corrupt or self.duplicate):
            return data
        out = bytearray()
        corrupt_below = self.drop + self.corrupt
        duplicate_below = corrupt_below + self.duplicate
        for byte in data:
            r = rng.random()
            if r < self.drop:
                continue
            if r < corrupt_below:
                out.append(byte ^ rng.randrange(1, 256))
                continue
            out.append(byte)
            if r < duplicate_below:
                out.append(byte)
        return bytes(out)


class Wire:
    """One direction of a serial cable at ``baudrate`` (8N1: 10 bit times a byte; None = instant)."""

    def __init__(self, baudrate: int | None, faults: Faults, rng: random.Random):
        self.baudrate = baudrate
        self.faults = faults
        self.rng = rng
        self._chunks: collections.deque[tuple[float, bytes]] = collections.deque()
        self._free_at = 0.0
        self.sent = 0  # bytes put on the wire, before damage

    def send(self, data: bytes, now: float) -> None:
        """Start sending ``data`` at ``now``, after what is already on the wire."""
        self.sent += len(data)
        start = max(now, self._free_at)
        if self.faults.delay and self.rng.random() < self.faults.delay:
            start += self.rng.uniform(0, self.faults.max_delay)
        data = self.faults.damage(data, self.rng)
        duration = len(data) * 10 / self.baudrate if self.baudrate else 0.0
        self._free_at = start + duration
        if data:
            self._chunks.append((self._free_at, data))

    def receive(self, now: float) -> bytes:
        """The bytes that have fully arrived by ``now``."""
        out = bytearray()
        while self._chunks and self._chunks[0][0] <= now:
            out.extend(self._chunks.popleft()[1])
        return bytes(out)

    def next_arrival(self) -> float | None:
        """When the next chunk arrives, or None when the wire is empty."""
        return self._chunks[0][0] if self._chunks else None

    def clear(self) -> None:
        """Lose everything in transit (the cable was pulled)."""
        self._chunks.clear()
        self._free_at = 0.0
