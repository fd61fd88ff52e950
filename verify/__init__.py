"""verify: empirical checks of the privacy and regret claims behind dpbench.

Black-box DP audits (:mod:`verify.audit`), the exact Lemma 8/9 CDF checks of seed 002
(:mod:`verify.cdf_feasibility`) and their sample-based DKW-band version
(:mod:`verify.cdf_bands`), regret fits and bounds (:mod:`verify.regret_fits`,
:mod:`verify.bounds`), and the regret regression baseline (:mod:`verify.regret_baseline`).
"""
from .audit import assert_dp, audit, audit_policy
from .cdf_bands import band_check, band_check_family, band_check_mechanism
from .cdf_feasibility import (check_lemma8, check_lemma9, check_pair, feasible_region, shift_tightness,
                              minimal_start_phase)

__all__ = ["audit", "assert_dp", "audit_policy", "check_lemma8", "check_lemma9", "check_pair",
           "feasible_region", "shift_tightness", "minimal_start_phase", "band_check", "band_check_family",
           "band_check_mechanism"]
