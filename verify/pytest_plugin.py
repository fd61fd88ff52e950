"""pytest plugin of dpbench/verify (registered through the ``pytest11`` entry point)."""
