"""Cameras, GPIO, the display unit's firmware and every simulator."""
