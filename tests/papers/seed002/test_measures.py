"""Seed 002's measurements with its shipped claims rows, on synthetic runs (no simulation)."""
import math

import numpy as np

from dpbench.reporting import measures as M
from dpbench.reporting.claims import Evidence, Verdict
from tests.test_report_measures import T, claim, experiment, result


def test_crossing_measure_with_the_shipped_row():
    """The shipped Fig. 4(a) crossing row (its numeric crossing and tolerance, beside the table's
    display text) on synthetic runs: a crossing at t = 5,000 reproduces it, one at 50,000 does not."""
    from dpbench.reporting.claims import load_claims
    row = next(c for c in load_claims("002") if c.params.get("measure") == "crossing")
    shipped = row.params["args"]

    def verdict(cross):
        early = result("early", 1000.0, seed=8, shape=lambda t: np.log(t) / math.log(T))
        late = result("late", 1000.0, seed=9,                    # above early before t = cross, below after
                      shape=lambda t: np.log(t) / math.log(T) * (t / cross) ** -0.1)
        ev = Evidence({"e": experiment(("", "late", {}, late), ("", "early", {}, early))})
        ev.measure("crossing", M.measure_crossing)
        args = {**shipped, "late": {"experiment": "e", "run": "late"}, "early": {"experiment": "e", "run": "early"}}
        return M.measure_crossing(claim("crossing", **args), ev)

    assert verdict(5_000.0).verdict is Verdict.REPRODUCED, verdict(5_000.0).statistic
    assert verdict(50_000.0).verdict is Verdict.REFUTED
