"""Independent check, without dpbench: a library's "x + noise" release tells x = 0 from x' = 1 by its low bits.

    python reports/low_bits_check.py MECHANISM [N]      # MECHANISM: one of CASES below; N outputs per input

The event A = "the released value is not a multiple of 2^-53" (a nonzero bit below 2^-53).

* Under x' = 1 a release computed as the double 1 + s (s: the noise, any double) is never in A: if
  |1 + s| >= 1/2 its ulp is at least 2^-53; if |1 + s| < 1/2, then s lies in (-3/2, -1/2), where
  every double is a multiple of 2^-53, and 1 + s is exact (Sterbenz).  So P(A | 1) = 0.
* Under x = 0 the release is s itself (or -s), and a noise value below 1/2 in magnitude has bits
  below 2^-53 unless it lies on a coarse lattice: A is then frequent.

(eps, delta)-DP requires P(A | 0) <= e^eps P(A | 1) + delta for every event.  The script counts A on N
outputs of each input with the library's own sampler, bounds both probabilities (Clopper-Pearson at
1 - 1e-6 each) and compares them with the mechanism's claim.  It imports the library and scipy only.
"""
import math
import sys

from scipy.stats import beta

ALPHA = 1e-6


def pydp_gaussian():
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism
    m = GaussianMechanism(1.0, 1e-5, 1.0)
    return m.add_noise, (1.0, 1e-5), "python-dp GaussianMechanism(epsilon=1, delta=1e-5, l2_sensitivity=1)"


def pipelinedp_gaussian():
    from pipeline_dp.dp_computations import GaussianMechanism
    m = GaussianMechanism.create_from_epsilon_delta(1.0, 1e-5, 1.0)
    return m.add_noise, (1.0, 1e-5), "PipelineDP dp_computations.GaussianMechanism(1, 1e-5, l2_sensitivity=1)"


def diffprivlib_laplace():
    from diffprivlib.mechanisms import Laplace
    return Laplace(epsilon=1, sensitivity=1).randomise, (1.0, 0.0), "diffprivlib Laplace(epsilon=1, sensitivity=1)"


def diffprivlib_gaussian_analytic():
    from diffprivlib.mechanisms import GaussianAnalytic
    m = GaussianAnalytic(epsilon=1, delta=1e-5, sensitivity=1)
    return m.randomise, (1.0, 1e-5), "diffprivlib GaussianAnalytic(epsilon=1, delta=1e-5, sensitivity=1)"


def opendp_laplace():
    try:                                   # OpenDP 0.8 and later
        import opendp.prelude as dp
        dp.enable_features("contrib")
        m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    except ImportError:                    # 0.4 - 0.7
        from opendp.meas import make_base_laplace
        from opendp.mod import enable_features
        enable_features("contrib", "floating-point")
        m = make_base_laplace(scale=1.0)
    import opendp
    version = getattr(opendp, "__version__", "")
    return m, (1.0, 0.0), f"OpenDP {version} Laplace on floats, scale 1 (eps = 1 at d_in = 1)".replace("  ", " ")


def opendp_gaussian():
    try:                                   # OpenDP 0.8 and later: zCDP, rho = 0.5 -> eps at delta = 1e-5
        import opendp.prelude as dp
        dp.enable_features("contrib")
        m = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
        eps = dp.c.make_zCDP_to_approxDP(m).map(1.0).epsilon(1e-5)
    except ImportError:                    # 0.4: the analytic Gaussian, (eps, delta) by its privacy relation
        from opendp.meas import make_base_analytic_gaussian
        from opendp.mod import enable_features
        enable_features("contrib", "floating-point")
        m = make_base_analytic_gaussian(scale=1.0)
        eps = next(e / 100 for e in range(1, 100_000) if m.check(1.0, (e / 100, 1e-5)))
    return m, (eps, 1e-5), f"OpenDP Gaussian on floats, scale 1 (eps = {eps:.4g} at delta = 1e-5, d_in = 1)"


CASES = {"pydp-gaussian": pydp_gaussian, "pipelinedp-gaussian": pipelinedp_gaussian,
         "diffprivlib-laplace": diffprivlib_laplace, "diffprivlib-gaussian-analytic": diffprivlib_gaussian_analytic,
         "opendp-laplace": opendp_laplace, "opendp-gaussian": opendp_gaussian}


def in_a(v: float) -> bool:
    """A: v is not a multiple of 2^-53 (multiplying by a power of two is exact)."""
    return not (float(v) * 2.0 ** 53).is_integer()


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in CASES:
        sys.exit(f"usage: python reports/low_bits_check.py {{{','.join(CASES)}}} [N]")
    release, (eps, delta), name = CASES[sys.argv[1]]()
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 1_000_000
    counts = {x: sum(in_a(release(x)) for _ in range(n)) for x in (0.0, 1.0)}
    low0 = beta.ppf(ALPHA, counts[0.0], n - counts[0.0] + 1) if counts[0.0] else 0.0
    high1 = beta.ppf(1 - ALPHA, counts[1.0] + 1, n - counts[1.0]) if counts[1.0] < n else 1.0
    need = math.exp(eps) * high1 + delta
    print(f"{name}: claim ({eps:g}, {delta:g})")
    print(f"A = 'not a multiple of 2^-53': {counts[0.0]:,} of {n:,} outputs at x=0, {counts[1.0]:,} of {n:,} at x=1")
    print(f"at confidence 1 - {2 * ALPHA:g}: P(A | 0) >= {low0:.5f}, P(A | 1) <= {high1:.3g}")
    print(f"the claim needs P(A | 0) <= e^eps P(A | 1) + delta <= {need:.3g}: " + ("VIOLATED" if low0 > need else
                                                                                    "not shown"))
    if counts[1.0] == 0 and low0 > delta:
        print(f"P(A | 1) = 0 exactly (see the docstring): not (eps, delta)-DP for any eps and any delta < {low0:.4f}")


if __name__ == "__main__":
    main()
