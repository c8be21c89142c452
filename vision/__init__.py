"""Frames in, observations out: calibration and reading of the board, dice and cube."""
