"""bgref's rules engine: positions, legal plays, notation, IDs, cube and match.

Pure Python with no I/O; every other part of bgref asks it what is legal.
"""
