"""verify: empirical checks of the privacy and regret claims behind dpbench."""
