"""Independent check, without dpbench: python-dp's GaussianMechanism tells x = 0 from x' = 1 by its low bits.

    pip install python-dp scipy && python reports/pydp_gaussian_check.py [N]

The event A = "the released value is not a multiple of 2^-53" (it has a nonzero bit below 2^-53).

* Under x' = 1 the release is the double 1 + s (s: the noise, a double).  If |1 + s| >= 1/2, its
  ulp is at least 2^-53, so it is a multiple of 2^-53.  If |1 + s| < 1/2, then s lies in
  (-3/2, -1/2), where every double is a multiple of 2^-53, and 1 + s is exact (Sterbenz), again a
  multiple of 2^-53.  So A is impossible under x' = 1: P(A | 1) = 0.
* Under x = 0 the release is s itself.  The noise is a multiple of python-dp's granularity,
  2^-54 at sigma = 3.73 (granularity = the power of two above 2 sigma / 2^57), so a noise value
  below 1/2 in magnitude usually has its 2^-54 bit set: A happens about one time in ten.

(eps, delta)-DP requires P(A | 0) <= e^eps P(A | 1) + delta = delta for every event.  The script counts
A on N outputs of each input and bounds both probabilities (Clopper-Pearson, 99.9999% each).
"""
import math
import sys

from pydp.algorithms.numerical_mechanisms import GaussianMechanism
from scipy.stats import beta

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000
EPS, DELTA, SENSITIVITY = 1.0, 1e-5, 1.0
ALPHA = 1e-6


def below_2_53(v: float) -> bool:
    """A: v is not a multiple of 2^-53 (multiplying by a power of two is exact)."""
    return not (v * 2.0 ** 53).is_integer()


def multiple_of(v: float, k: int) -> bool:
    return (v * 2.0 ** k).is_integer()


mech = GaussianMechanism(EPS, DELTA, SENSITIVITY)
counts, lattice = {}, {}
for x in (0.0, 1.0):
    outs = [mech.add_noise(x) for _ in range(N)]
    counts[x] = sum(below_2_53(v) for v in outs)
    lattice[x] = all(multiple_of(v, 54) for v in outs)

low0 = beta.ppf(ALPHA, counts[0.0], N - counts[0.0] + 1) if counts[0.0] else 0.0
high1 = beta.ppf(1 - ALPHA, counts[1.0] + 1, N - counts[1.0]) if counts[1.0] < N else 1.0
print(f"python-dp GaussianMechanism(epsilon={EPS}, delta={DELTA}, l2_sensitivity={SENSITIVITY}): std {mech.std}")
print(f"outputs on the 2^-54 lattice: x=0 {lattice[0.0]}, x=1 {lattice[1.0]}")
print(f"A = 'not a multiple of 2^-53': {counts[0.0]:,} of {N:,} outputs at x=0, {counts[1.0]:,} of {N:,} at x=1")
print(f"at confidence 1 - {2 * ALPHA:g}: P(A | 0) >= {low0:.5f}, P(A | 1) <= {high1:.3g}")
need = math.exp(EPS) * high1 + DELTA
print(f"(eps, delta) = ({EPS}, {DELTA}) needs P(A | 0) <= e^eps P(A | 1) + delta <= {need:.3g}: "
      + ("VIOLATED" if low0 > need else "not shown"))
if counts[1.0] == 0 and low0 > DELTA:
    print(f"no eps at all: P(A | 1) = 0 exactly (see the docstring), so the mechanism is not (eps, delta)-DP "
          f"for any eps and any delta < {low0:.4f}")
