"""The append-only journal of accepted match events.

Every event the referee accepts is appended as one line ``SEQ CRC JSON`` and
flushed to disk (``fsync``) before anyone is told about it, so a power cut or a
``kill -9`` loses nothing that was signalled. On opening, a torn last line (the
write that was cut off) is recognised by its CRC and cut away; a damaged line
anywhere else is an error naming the file and line, and the file is left as it
is so that no recorded data is lost.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path


class JournalError(ValueError):
    """A journal line that cannot be trusted, with the file and line in the message."""


def _line(seq: int, event: dict) -> bytes:
    body = json.dumps(event, separators=(",", ":"), sort_keys=True)
    crc = zlib.crc32(f"{seq} {body}".encode())
    return f"{seq} {crc:08x} {body}\n".encode()


def _parse(path: Path, number: int, raw: bytes) -> tuple[int, dict]:
    try:
        text = raw.decode()
        seq_text, crc_text, body = text.rstrip("\n").split(" ", 2)
        seq = int(seq_text)
        if int(crc_text, 16) != zlib.crc32(f"{seq} {body}".encode()):
            raise ValueError("checksum does not match")
        event = json.loads(body)
        if not isinstance(event, dict):
            raise ValueError("not an event object")
    except (ValueError, UnicodeDecodeError) as err:
        raise JournalError(f"{path}:{number}: damaged journal line ({err})") from None
    return seq, event


class Journal:
    """An append-only, fsync'ed list of events (dicts) in one file.

    >>> import tempfile, pathlib
    >>> j = Journal(pathlib.Path(tempfile.mkdtemp()) / "match.journal")
    >>> j.append({"type": "roll", "dice": [3, 1]})
    1
    >>> Journal(j.path).events
    [{'dice': [3, 1], 'type': 'roll'}]
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.events: list[dict] = []
        self.recovered_bytes = 0
        self._load()
        self._file = open(self.path, "ab")

    def _load(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        tail = lines.pop()  # bytes after the last newline: a torn write, or b""
        good_end = len(data) - len(tail)
        for number, raw in enumerate(lines, start=1):
            try:
                seq, event = _parse(self.path, number, raw + b"\n")
            except JournalError:
                if number == len(lines) and not tail:
                    good_end -= len(raw) + 1  # the last complete line was cut mid-way through a flush
                    break
                raise
            if seq != len(self.events) + 1:
                raise JournalError(f"{self.path}:{number}: event {seq} follows event {len(self.events)}")
            self.events.append(event)
        if good_end < len(data):
            self.recovered_bytes = len(data) - good_end
            with open(self.path, "r+b") as f:
                f.truncate(good_end)
                f.flush()
                os.fsync(f.fileno())

    def append(self, event: dict) -> int:
        """Write one event durably; returns its sequence number (from 1)."""
        seq = len(self.events) + 1
        self._file.write(_line(seq, event))
        self._file.flush()
        os.fsync(self._file.fileno())
        self.events.append(event)
        return seq

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
