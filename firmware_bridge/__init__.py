"""The serial protocol between the referee and the display unit."""
