"""Sub-commands of ``bgref``; each module registers one (see ``controller.cli``)."""
