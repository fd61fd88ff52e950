"""verify: empirical checks of the privacy and regret claims behind dpbench."""
from .audit import assert_dp, audit  # noqa: E402,F401  (issue 6: black-box DP audits)
