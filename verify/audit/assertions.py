"""``assert_dp``: an audit as an assertion inside any test (and the pytest fixture's engine)."""
from __future__ import annotations

from dpbench.validation import check_real
from verify.inference import p_text

from . import libraries
from . import statistics as st
from .engine import audit
from .features import of_layer
from .inputs import describe_pair
from .layers import LAW
from .result import AuditResult, bound_text


def assert_dp(mechanism, eps=None, delta=None, x=None, x_prime=None, *, alpha=1e-6, n=None, seed=0, law_only=False,
              **kwargs) -> AuditResult:
    """Fail (AssertionError) if an audit certifies a violation of (eps, delta)-DP.

    For use inside any test: passes silently (returning the result) unless the audit rejects
    the claim at level ``alpha``, by the law or by the floating point (``law_only``: by the
    law only).

    Parameters
    ----------
    mechanism : callable or library object
        ``mechanism(x, n, seed)``, or a DP library's mechanism object, as for :func:`verify.audit.audit`.
    eps, delta : float
        The claim (``delta`` default 0); for a library object, default its own claim.
    x, x_prime : object, optional
        The input pair, as for :func:`verify.audit.audit`.
    alpha : float
        Level of the test (default 1e-6: a correct mechanism fails with probability at
        most 1e-6).
    n : int, optional
        Outputs per input; default the smallest power of two that can certify eps + 0.5 at
        this alpha, and at least 200,000.
    seed : int
        Seed of the audit.
    law_only : bool
        Check the law only: the mechanism as if its arithmetic were exact (the floating-point
        layer is not tested, e.g. for a sampler known to add its noise in plain floating point).
    **kwargs
        Other keywords of :func:`verify.audit.audit`.

    Returns
    -------
    AuditResult
        The audit's result, when it does not reject the claim.

    Raises
    ------
    AssertionError
        The audit certifies a violation; the message names the layer, the witness pair and
        event, and the fix.

    Examples
    --------
    >>> import dpbench
    >>> from verify.audit import assert_dp
    >>> assert_dp(dpbench.sampler("ctb", eps=1.0), eps=1.0)    # doctest: +SKIP
    """
    __tracebackhide__ = True
    if n is None:
        claimed = eps if eps is not None else libraries.resolve(mechanism, x, x_prime, eps, delta).eps
        need = st.min_samples_to_certify(check_real("eps", claimed, low=0.0) + 0.5,
                                         check_real("alpha", alpha, low=0.0, high=1.0,
                                                    low_open=True, high_open=True))
        n = max(200_000, 1 << max(0, need - 1).bit_length())
    if law_only:
        kwargs["features"] = of_layer(kwargs.get("features", ("auto",)), LAW)
    result = audit(mechanism, x, x_prime, eps=eps, delta=delta, alpha=alpha, n=n, seed=seed, **kwargs)
    if result.violated:
        eps, delta = result.eps, result.delta
        lines = [f"{result.mechanism} is not ({eps:g}, {delta:g})-DP: {result.verdict()} (confidence "
                 f"{1 - alpha:g})"]
        if result.info.get("claim"):                      # a library object's claim, its source and notes
            lines += [f"  {result.info['claim']['text']}"] + [f"  note: {t}" for t in result.info["claim"]["notes"]]
        for layer in result.layers:
            if layer.violated:
                w = layer.witness
                bound = bound_text(layer.eps_lower_bound, eps)
                lines.append(f"  {layer.title}: certified eps >= {bound} at delta={delta:g} "
                             f"(p-value {p_text(layer.p_value)}); witness: {describe_pair(w['x'], w['x_prime'])}, "
                             f"event {w['event']}: {w['count_x']}/{w.get('n_x', result.n)} vs "
                             f"{w['count_x_prime']}/{w.get('n_x_prime', result.n)} "
                             f"outputs; {layer.fix}")
        lines.append(f"  {result.n_samples:,} samples, seed {seed}")
        raise AssertionError("\n".join(lines))
    return result
