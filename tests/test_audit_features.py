"""The statistic plug-ins (verify.audit.features) and the floating-point layer's stratified test:
the registry, the ``features`` tokens, granularity ranked given the binade, event descriptions of
big sets, and the stratified test that keeps a law effect from being blamed on the arithmetic."""
import numpy as np
import pytest

from dpbench import InputError
from verify.audit import features, statistics
from verify.audit.features import grain, ranked
from verify.audit.features.base import Feature, FitData
from verify.audit.layers import FLOATING_POINT, LAW, shares


def test_registry_finds_every_plugin_once_with_its_layer():
    found = features.registry()
    names = [f.name for f in found]
    assert names == ["likelihood", "category", "value", "score", "grain", "bits"]
    assert all(isinstance(f, Feature) and f.layer in (LAW, FLOATING_POINT) and f.help and f.fix for f in found)
    assert {f.name for f in found if f.layer == FLOATING_POINT} == {"grain", "bits"}


def test_feature_tokens():
    def names(tokens):
        return [f.name + (str(o["k"]) if o else "") for f, o in features.resolve(tokens)]
    assert names(("auto",)) == ["likelihood", "category", "value", "score", "grain"]
    assert names(("law",)) == ["likelihood", "category", "value", "score"]
    assert names("floating_point,bits12") == ["likelihood", "grain", "bits12"]
    assert names(("value",)) == ["likelihood", "value"] and names(()) == ["likelihood"]
    assert features.of_layer(("auto", "bits"), LAW) == ("likelihood", "category", "value", "score")
    for bad in ("granularity", "bits0", "bits99", "bitsx"):
        with pytest.raises(InputError, match=f"unknown feature '{bad}'"):
            features.resolve((bad,))
    assert shares({LAW, FLOATING_POINT}) == {LAW: 0.9, FLOATING_POINT: pytest.approx(0.1)}
    assert shares({LAW}) == {LAW: 1.0} and shares({FLOATING_POINT}) == {FLOATING_POINT: 1.0}


def _classes(binade: float, weights, size: int, rng) -> np.ndarray:
    """Floats in [binade, 2 binade) that are odd multiples of binade * 2^-52 * 2^j with probability weights[j]."""
    j = rng.choice(len(weights), size=size, p=np.asarray(weights) / np.sum(weights))
    odd = 2 * rng.integers(0, 2 ** 27, size=size) + 1           # distinct enough that no value is an atom
    return binade + odd * binade * 2.0 ** (-32) * 2.0 ** j


def test_granularity_is_ranked_given_the_binade():
    """Classes whose conditional ratio (given their binade) is known: the ranking follows it,
    whatever the binades' own frequencies (here the binade 4 is 9 times as frequent under x')."""
    rng = np.random.default_rng(1)
    w_x, w_xp = [1, 2, 4, 8], [8, 4, 2, 1]             # class j: conditional ratio (w_x / w_xp)[j]
    rows_x = np.concatenate([_classes(1.0, w_x, 90_000, rng), _classes(4.0, w_x, 10_000, rng)])[:, None]
    rows_xp = np.concatenate([_classes(1.0, w_xp, 10_000, rng), _classes(4.0, w_xp, 90_000, rng)])[:, None]
    stat = ranked.ranked_statistic(grain.FEATURE, rows_x, rows_xp, name="granularity", mode="grain")
    grains = [grain.grain_exponent(v) - (np.frexp(v)[1] - 1) for v in stat.info["examples"][:, 0]]
    # the two binades' classes of largest conditional ratio first, smallest last
    assert sorted(grains[:2]) == [-29, -29] and sorted(grains[-2:]) == [-32, -32], grains
    assert [s[0] for s in stat.info["strata"]] == [ranked.binade_keys(r[None, :])[0][0]
                                                   for r in stat.info["examples"]]


def test_stratified_test_tells_granularity_from_magnitude():
    """Within-binade differences reject; binade frequencies alone do not (a law effect)."""
    strata = ["A", "A", "B", "B"]
    member = np.array([True, False, True, False])
    # the event {class 0 of A, class 0 of B}: same share of each binade under both inputs
    law_only = statistics.stratified_excess([900, 900, 100, 100], [100, 100, 900, 900], member, strata)
    assert law_only > 0.4
    # the same binade frequencies, but within each binade the event favours x
    leak = statistics.stratified_excess([1500, 300, 150, 50], [100, 100, 900, 900], member, strata)
    assert leak < 1e-12
    assert statistics.stratified_excess([10, 0], [0, 10], np.array([True, False]), ["A", "B"]) == 1.0


def test_big_sets_are_summarised_and_binades_read_plainly():
    rng = np.random.default_rng(2)
    rows_x = rng.normal(size=(20_000, 1))
    rows_xp = rows_x + 1.0
    stat = ranked.ranked_statistic(grain.FEATURE, rows_x, rows_xp, name="granularity", mode="grain")
    edges = ranked.rank_edges(stat)
    bins = np.zeros(edges.size + 1, bool)
    bins[:40] = True
    text = stat.describe(edges, bins)
    assert text.startswith("one of 40 granularity classes: |output| in [") and "odd multiples of 2^" in text
    bins[:] = False
    bins[0] = True
    assert stat.describe(edges, bins) == grain.grain_text(stat.info["examples"][0, 0])
    data = FitData(np.array([[0.0], [1.0]] * 50), np.array([[1.0], [1.0]] * 50))
    assert grain.FEATURE.statistics(data) == []                     # integers: no floating-point layer
