"""The match files: rewritten atomically from the match log after every turn.

The ``.mat`` file is in GNU Backgammon's own dialect, so GNU Backgammon and
eXtreme Gammon open it; the SGF file is GNU Backgammon's match format. Each is
written to a temporary file in the same folder, flushed to disk and renamed
over the old one, so a power cut leaves either the old file or the new one,
never half of one. Everything in them comes from the journal, so after a crash
they are written again, identical.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from controller.match_log import MatchLog
from controller.referee import RecordChanged
from engine.records.mat import write_mat
from engine.records.sgf import write_sgf


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves the old or the new file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


class Recorder:
    """An output that writes ``NAME.mat`` and ``NAME.sgf`` whenever a turn or a game ends."""

    def __init__(self, log: MatchLog, mat_path: Path, sgf: bool = True):
        self.log = log
        self.mat_path = Path(mat_path)
        self.sgf_path = self.mat_path.with_suffix(".sgf") if sgf else None
        self.writes = 0

    def handle(self, signal) -> None:
        if isinstance(signal, RecordChanged):
            self.write()

    def write(self) -> None:
        checked = self.log.checked()
        write_atomically(self.mat_path, write_mat(checked))
        if self.sgf_path is not None:
            write_atomically(self.sgf_path, write_sgf(checked))
        self.writes += 1
