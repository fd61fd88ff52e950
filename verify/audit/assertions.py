"""``assert_dp``: an audit as an assertion inside any test (and the pytest fixture's engine)."""
from __future__ import annotations

import warnings

from dpbench.validation import check_real
from verify.inference import confidence_text, p_text

from . import libraries
from . import statistics as st
from .engine import audit, check_keyword_claim
from .features import of_layer
from .inputs import describe_pair
from .layers import LAW
from .result import NOT_TESTED, AuditResult, bound_text

#: a passing audit whose violating events must have at least this mass to be found (in half the runs) is
#: weak: assert_dp warns (a Laplace count of twice its claim passed at n = 150 to 300, alpha = 1e-6, with
#: floors 0.77 to 0.38; assert_dp's default n has a floor near 0.001)
WEAK_FLOOR = 0.1


def assert_dp(mechanism, x=None, x_prime=None, *extra, eps=None, delta=None, alpha=1e-6, n=None, seed=0, law_only=False,
              **kwargs) -> AuditResult:
    """Fail (AssertionError) if an audit certifies a violation of (eps, delta)-DP, or cannot test it.

    For use inside any test: passes silently (returning the result) unless the audit rejects
    the claim at level ``alpha``, by the law or by the floating point (``law_only``: by the
    law only), or has no power to test it (outputs that leave no event to count: never a pass).
    A pass on samples that find only violating events of mass above WEAK_FLOOR (a small n or
    budget) comes with a UserWarning naming that floor.
    The arguments are those of :func:`verify.audit.audit`, in its order.

    Parameters
    ----------
    mechanism : callable or library object
        ``mechanism(x, n, seed)``, or a DP library's mechanism object, as for :func:`verify.audit.audit`.
    x, x_prime : object, optional
        The input pair, as for :func:`verify.audit.audit`.
    eps, delta : float
        The claim, keyword-only (``delta`` default 0).
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
        The audit certifies a violation (the message names the layer, the witness pair and
        event, and the fix), or it had no power to test the claim (the message says why).
    dpbench.InputError
        Bad input, or a mechanism that breaks the sampling contract (it ignores its seed, or a
        call's outputs are not independent draws).

    Examples
    --------
    >>> import dpbench
    >>> from verify.audit import assert_dp
    >>> assert_dp(dpbench.sampler("ctb", eps=1.0), 0.0, 1.0, eps=1.0)    # doctest: +SKIP
    """
    __tracebackhide__ = True
    check_keyword_claim("assert_dp", extra)
    given_n = n is not None                    # with a budget too, the audit refuses it in one line
    if n is None and kwargs.get("budget") is None:
        claimed = eps if eps is not None else libraries.resolve(mechanism, x, x_prime, eps, delta).eps
        need = st.min_samples_to_certify(check_real("eps", claimed, low=0.0) + 0.5,
                                         check_real("alpha", alpha, low=0.0, high=1.0,
                                                    low_open=True, high_open=True))
        n = max(200_000, 1 << max(0, need - 1).bit_length())
    if law_only:
        kwargs["features"] = of_layer(kwargs.get("features", ("auto",)), LAW)
    if kwargs.get("budget") is not None and not given_n:
        n = None                               # a sequential audit sizes its own rounds
    result = audit(mechanism, x, x_prime, eps=eps, delta=delta, alpha=alpha, n=n, seed=seed, **kwargs)
    if result.status == NOT_TESTED:
        raise AssertionError(f"{result.mechanism} could not be tested against ({result.eps:g}, {result.delta:g})-DP: "
                             f"{result.verdict()}\n  {result.law.line(result.n, result.eps)}")
    if result.violated:
        eps, delta = result.eps, result.delta
        lines = [f"{result.mechanism} is not ({eps:g}, {delta:g})-DP: {result.verdict()} (confidence "
                 f"{confidence_text(alpha)})"]
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
        if result.sequential is not None:
            lines.append(f"  {result.sequential.line()}")
        lines += [f"  warning: {w}" for w in result.warnings]     # e.g. a seed that does not reproduce the draws
        raise AssertionError("\n".join(lines))
    if result.delta_floor > WEAK_FLOOR:
        text = (f"assert_dp({result.mechanism}) passed, but these samples find only violating events of mass >= "
                f"{result.delta_floor:.2g} (at alpha = {alpha:g}): a mechanism of twice its claim can pass an audit "
                f"this small; give no n (the default) or a larger n or budget")
        warnings.warn(text, UserWarning, stacklevel=2)
    return result
