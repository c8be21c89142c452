r"""Match records: read ``.mat`` text, validate it with the engine, write ``.mat`` and SGF.

A Galaxy line without hit marks comes back in GNU Backgammon's dialect:

>>> from engine.records import read_mat, check_match, write_mat
>>> text = "3 point match\n\n Game 1\n a : 0    b : 0\n  1) 31: 8/5 6/5   61: 24/18 24/23\n  2) 64: 13/7 24/20\n"
>>> write_mat(check_match(read_mat(text, "demo.mat"))).splitlines()[5].rstrip()
'  2) 64: 24/20 13/7*'
"""

from engine.records.mat import read_mat, write_mat
from engine.records.model import Action, GameRecord, MatchRecord, RecordError, Result, Turn
from engine.records.sgf import write_sgf
from engine.records.validate import CheckedGame, CheckedMatch, CheckedTurn, check_match, validate

__all__ = ["read_mat", "write_mat", "write_sgf", "validate", "check_match", "Action", "GameRecord",
           "MatchRecord", "RecordError", "Result", "Turn", "CheckedGame", "CheckedMatch", "CheckedTurn"]
