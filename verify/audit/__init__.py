"""Black-box differential-privacy audits with certified lower bounds.

>>> import dpbench, verify
>>> r = verify.audit(dpbench.sampler("ctb", eps=1.0), 0.0, 1.0, eps=1.0, n=1_000_000)
>>> r.eps_lower_bound <= 1.0, r.violated
(True, False)

``core.audit`` (the audit and its result), ``events`` (event search),
``statistics`` (Clopper-Pearson, p-values, resolution floors), ``tradeoff``
(certified f-DP points and Gaussian-DP mu), ``fast`` (compiled mechanisms counted
without storing outputs), ``inputs`` (neighbouring pairs: the standard patterns,
add/remove one record), ``policy_audit`` (bandit policies as mechanisms),
``sniper_benchmark`` (the DP-Sniper known-answer suite).
"""
from .core import AuditResult, assert_dp, audit, check_resolution
from .fast import compiled_mechanism
from .inputs import Domain, pattern_pairs
from .policy_audit import audit_policy

__all__ = ["audit", "assert_dp", "audit_policy", "AuditResult", "Domain", "pattern_pairs",
           "compiled_mechanism", "check_resolution"]
