"""verify: empirical checks of the privacy and regret claims behind dpbench."""
from .audit import assert_dp, audit, audit_policy  # noqa: E402,F401  (issue 6: black-box DP audits)
from .cdf_feasibility import check_lemma8, check_lemma9, check_pair, feasible_region, lemma15_tightness, minimal_start_phase  # noqa: E402,F401  (issue 7)
from .cdf_bands import band_check, band_check_family, band_check_mechanism  # noqa: E402,F401  (issue 7: DKW-band version)
