"""The match clock: each player's reserve, with a delay per turn, read off the event times.

A player's clock runs from the moment the turn passes to them (the opening roll
or the opponent's finished play) until they finish their own play by picking up
the dice. Each turn the first ``delay`` seconds are free (a simple delay, as on
tournament clocks). Nothing is stored: the clock is derived from the journaled
events, so it survives a restart exactly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClockRules:
    reserve: float          # seconds each player has for the match
    delay: float = 12.0     # free seconds at the start of every turn


def remaining(events: list[dict], rules: ClockRules, now: float) -> tuple[float, float, str | None]:
    """Seconds left to White and Black at time ``now`` (negative once a flag has fallen), and whose clock runs."""
    used = {"white": 0.0, "black": 0.0}
    running: str | None = None
    since = 0.0

    def charge(until: float) -> None:
        if running is not None:
            used[running] += max(0.0, until - since - rules.delay)

    for event in events:
        kind, t = event["type"], event.get("t", 0.0)
        if kind == "opening" and event["white"] != event["black"]:
            running, since = ("white" if event["white"] > event["black"] else "black"), t
        elif kind in ("play", "accepted"):
            charge(t)
            running, since = ("black" if event["side"] == "white" else "white"), t
            if event.get("ends_game"):
                running = None
        elif kind in ("drop", "resign_accept", "game"):
            charge(t)
            running = None
    charge(now)
    return rules.reserve - used["white"], rules.reserve - used["black"], running
