"""Independent check, without dpbench: OpenDP 0.4.0's make_randomized_response_bool(prob=0.75) is not ln(3)-DP.

    pip install opendp==0.4.0 "numpy<2" scipy && python reports/opendp_rr_bool_check.py [N]

Randomised response with prob = 0.75 reports the true bit with probability 0.75, so P(True | True) /
P(True | False) = 3 and its privacy relation accepts eps = ln 3.  The script counts True on N outputs
of each input with the library's own sampler, bounds both frequencies (Clopper-Pearson, 1 - 1e-6 each)
and certifies eps >= ln(lower bound of one frequency / upper bound of the other) for both outcomes.
"""
import math
import sys

from scipy.stats import beta

try:
    import opendp.prelude as dp  # OpenDP 0.8 and later
    dp.enable_features("contrib")
    mech = dp.m.make_randomized_response_bool(prob=0.75)
except ImportError:                                 # 0.4 - 0.7
    from opendp.meas import make_randomized_response_bool
    from opendp.mod import enable_features
    enable_features("contrib")
    mech = make_randomized_response_bool(prob=0.75)

N = int(float(sys.argv[1])) if len(sys.argv) > 1 else 200_000
ALPHA = 1e-6
trues = {x: sum(bool(mech(x)) for _ in range(N)) for x in (False, True)}


def low(k):
    return beta.ppf(ALPHA, k, N - k + 1) if k else 0.0


def high(k):
    return beta.ppf(1 - ALPHA, k + 1, N - k) if k < N else 1.0


print(f"make_randomized_response_bool(prob=0.75): claim eps = ln 3 = {math.log(3):.4f}")
for x in (False, True):
    print(f"input {x}: True in {trues[x]:,} of {N:,} outputs ({trues[x] / N:.4f}; exact 0.75 or 0.25 expected)")
eps_true = math.log(low(trues[True]) / high(trues[False]))                  # the event "output True"
eps_false = math.log(low(N - trues[False]) / high(N - trues[True]))         # the event "output False"
bound = max(eps_true, eps_false)
print(f"certified (each bound at confidence 1 - {2 * ALPHA:g}): eps >= {bound:.4f} "
      f"(event True: {eps_true:.4f}, event False: {eps_false:.4f}): "
      + ("VIOLATED" if bound > math.log(3) else "not shown"))
