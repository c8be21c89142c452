"""The referee: state machine, service loop, recording and the ``bgref`` command."""
