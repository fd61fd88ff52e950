"""Black-box differential-privacy audits with certified lower bounds, by layer (law, floating point).

>>> import dpbench, verify
>>> r = verify.audit(dpbench.sampler("ctb", eps=1.0), 0.0, 1.0, eps=1.0, n=1_000_000)
>>> r.law.eps_lower_bound <= 1.0, r.violated
(True, False)

Layout: ``engine`` (:func:`audit`: the five stages in order), ``stages`` (validate, select,
refine, certify, assemble), ``features`` (the statistic plug-ins, each declaring its layer),
``layers`` (law and floating point, and how they share alpha), ``result`` (:class:`AuditResult`,
:class:`LayerResult`), ``source`` (drawing and counting outputs, reading them by meaning),
``contract`` (the sampling contract, checked before any verdict), ``evalues`` (the betting
e-values of sequential audits), ``assertions``
(:func:`assert_dp`), ``events`` (event search over a statistic's bins), ``statistics``
(Clopper-Pearson, p-values, resolution floors), ``tradeoff`` (certified f-DP points and
Gaussian-DP mu), ``fast`` (compiled mechanisms counted without storing outputs), ``inputs``
(neighbouring pairs: the standard patterns, add/remove one record), ``policy_audit`` (bandit
policies as mechanisms), ``controls`` (dpbench's catalog settings and negative controls),
``suites`` (the DP-Sniper known-answer suite, planted bugs, DP libraries, reports), ``libraries``
(the mechanism objects of DP libraries, audited with the claim they carry).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_names

if TYPE_CHECKING:
    from .assertions import assert_dp
    from .engine import audit
    from .fast import compiled_mechanism
    from .inputs import Domain, pattern_pairs
    from .policy_audit import audit_policy
    from .result import AuditResult, LayerResult
    from .stages.validate import check_resolution

#: the public names and the modules they come from, imported on first use (PEP 562): the pytest plugin
#: imports this package in every pytest run of an environment with dpbench installed, and these modules
#: bring numba, scipy and statsmodels (about 1.9 s)
_PUBLIC = {"audit": ".engine", "assert_dp": ".assertions", "audit_policy": ".policy_audit",
           "AuditResult": ".result", "LayerResult": ".result", "Domain": ".inputs", "pattern_pairs": ".inputs",
           "compiled_mechanism": ".fast", "check_resolution": ".stages.validate"}

__all__ = list(_PUBLIC)


__getattr__, __dir__ = lazy_names(globals(), _PUBLIC)
