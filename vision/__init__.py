"""Vision: the simulated table, board finding, tile recognition and the live pipeline."""
