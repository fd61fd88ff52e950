"""verify: empirical checks of the privacy and regret claims behind dpbench.

Black-box DP audits (:mod:`verify.audit`), the exact Lemma 8/9 CDF checks of seed 002
(:mod:`verify.cdf_feasibility`) and their sample-based DKW-band version
(:mod:`verify.cdf_bands`), regret fits and bounds (:mod:`verify.regret_fits`,
:mod:`verify.bounds`), and the regret regression baseline (:mod:`verify.regret_baseline`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .lazy import lazy_names

from . import audit as _audit_package  # noqa: F401  (light: its names are imported on first use)

if TYPE_CHECKING:
    from .audit import assert_dp, audit, audit_policy
    from .cdf_bands import band_check, band_check_family, band_check_mechanism
    from .cdf_feasibility import (check_lemma8, check_lemma9, check_pair, feasible_region, minimal_start_phase,
                                  shift_tightness)

#: the public names and the modules they come from, imported on first use (PEP 562), so that the pytest
#: plugin (``verify.pytest_plugin``, loaded by every pytest run where dpbench is installed) costs nothing
#: until a test audits.  ``verify.audit`` is the function, as before: the subpackage of the same name
#: was imported just above, so the import system never binds it here again, and its binding is dropped
#: below for the function's.
_PUBLIC = {"audit": ".audit", "assert_dp": ".audit", "audit_policy": ".audit",
           "check_lemma8": ".cdf_feasibility", "check_lemma9": ".cdf_feasibility", "check_pair": ".cdf_feasibility",
           "feasible_region": ".cdf_feasibility", "shift_tightness": ".cdf_feasibility",
           "minimal_start_phase": ".cdf_feasibility", "band_check": ".cdf_bands",
           "band_check_family": ".cdf_bands", "band_check_mechanism": ".cdf_bands"}
del globals()["audit"]          # the subpackage's binding: verify.audit is the function (below)

__all__ = list(_PUBLIC)


__getattr__, __dir__ = lazy_names(globals(), _PUBLIC)
