"""The display unit's firmware (MicroPython); ``deploy`` installs it on the unit."""
