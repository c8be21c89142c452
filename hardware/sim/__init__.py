"""Simulated devices, used only through the same interfaces as the real ones."""
