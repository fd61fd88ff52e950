"""Add/remove-one neighbours (unbounded DP) and inputs of any type: datasets of different
sizes, dicts; the mechanism receives them as given, and the witness names the record added."""
import json

import numpy as np
import pytest

import verify
from dpbench import InputError
from verify.audit import Domain, pattern_pairs
from verify.audit.inputs import Verbatim, as_input, describe_pair, neighbour_pair
from verify.audit.suites.planted import snap

N = 100_000
ALPHA = 1e-6          # a correct mechanism is rejected with probability <= 1e-6


def noisy_mean(x, n, seed, eps=1.0):
    """Records in [0, 1]: sum + Laplace(1/eps), divided by the exact size.  Private under
    replace-one (the size is public) but not under add/remove (the size is released).  Sum
    and noise on the 2^-32 lattice (``controls.snap``): plain float addition would leak
    through the outputs' granularity, which the default audit reads."""
    rng = np.random.default_rng(seed)
    return (snap(np.sum(x)) + snap(rng.laplace(0.0, 1.0 / eps, n))) / len(x)


def noisy_count(x, n, seed, scale=1.0):
    """len(x) + Laplace(scale): eps = 1/scale under add/remove (the count has sensitivity 1)."""
    rng = np.random.default_rng(seed)
    return len(x) + snap(rng.laplace(0.0, scale, n))


def test_mechanism_receives_the_inputs_as_given():
    seen = []

    def mech(x, n, seed):
        seen.append(x)
        return np.zeros(n)
    verify.audit(mech, [0], [0, 1], eps=1.0, n=1000)
    assert [0] in seen and [0, 1] in seen
    seen.clear()
    verify.audit(mech, {"alice": 1}, {"alice": 1, "bob": 0}, eps=1.0, n=1000)
    assert {"alice": 1, "bob": 0} in seen
    # numbers and numeric arrays stay what they were given as: an integer indexes a category, a
    # table keeps its shape (flattened, a column sum of [[0, 1], [1, 1]] summed every entry and a
    # correct mechanism read as VIOLATED; an integer became 0.0 and P[x] raised)
    seen.clear()
    verify.audit(mech, 0, 1, eps=1.0, n=1000)
    assert seen and all(type(v) is int for v in seen)
    seen.clear()
    verify.audit(mech, [1], [0], eps=1.0, n=1000)
    assert seen and all(v in ([1], [0]) for v in seen)
    seen.clear()
    verify.audit(mech, [[0, 1], [1, 1]], [[0, 1], [0, 0]], eps=1.0, n=1000)
    assert seen and all(np.shape(v) == (2, 2) for v in seen)
    seen.clear()
    verify.audit(mech, eps=1.0, n=1000, domain=Domain(1, 0, 1))        # a one-dimensional domain: numbers
    assert seen and all(isinstance(v, float) for v in seen)
    seen.clear()
    verify.audit(mech, eps=1.0, n=1000, domain=Domain(1, 0, 2, integer=True))   # an integer domain: ints
    assert seen and all(type(v) is int for v in seen)
    seen.clear()
    verify.audit(mech, eps=1.0, n=1000, domain=Domain(3, 0, 2, integer=True))
    assert seen and all(v.dtype.kind == "i" and v.shape == (3,) for v in seen)


def test_violation_that_only_add_remove_neighbours_show():
    replace = verify.audit(noisy_mean, [1.0, 1.0], [1.0, 0.0], eps=1.0, n=N, alpha=ALPHA, seed=1)
    assert not replace.violated
    add = verify.audit(noisy_mean, [1.0], [1.0, 0.0], eps=1.0, n=N, alpha=ALPHA, seed=1)
    assert add.violated and add.eps_lower_bound > 1.5
    assert "adds the record 0" in str(add)
    data = json.loads(add.to_json())
    assert {tuple(data["witness"]["x"]), tuple(data["witness"]["x_prime"])} == {(1.0,), (1.0, 0.0)}


def test_noisy_count_scale_under_add_remove():
    assert not verify.audit(noisy_count, [0], [0, 1], eps=1.0, n=N, alpha=ALPHA, seed=2).violated
    half = verify.audit(lambda x, n, seed: noisy_count(x, n, seed, scale=0.5), [0], [0, 1],
                        eps=1.0, n=N, alpha=ALPHA, seed=2)
    assert half.violated and half.eps_lower_bound > 1.2


def test_dict_inputs():
    res = verify.audit(noisy_count, {"alice": 3}, {"alice": 3, "bob": 5}, eps=0.5, n=N, alpha=ALPHA, seed=3)
    assert res.violated and "'bob': 5" in str(res)


def test_dataset_domain_adds_and_removes_one_record():
    pairs = pattern_pairs(Domain(2, 0.0, 1.0, add_remove=True))
    sizes = sorted((len(as_input(a)), len(as_input(b))) for a, b in pairs)
    assert (2, 3) in sizes and all(isinstance(a, Verbatim) for a, _ in pairs)
    added = {float(as_input(b)[-1]) for a, b in pairs if len(as_input(b)) == 3}
    assert added == {0.0, 1.0}                              # 0, 2 and the extremes, clipped
    res = verify.audit(noisy_mean, eps=1.0, n=N, alpha=ALPHA, seed=4, domain=Domain(2, 0.0, 1.0, add_remove=True))
    assert res.violated and res.pairs_tried == len(pairs)
    assert len(res.witness["x"]) != len(res.witness["x_prime"])


def test_compiled_component_falls_back_to_the_plain_path_for_datasets():
    def mech(x, n, seed):
        return noisy_count(x, n, seed, scale=2.0)
    mech.component = object()          # would fail if the compiled path were used
    mech.output_dim = 1
    res = verify.audit(mech, [0], [0, 1], eps=0.5, n=20_000, seed=5)
    assert res.info["fast_path"] is False and not res.violated


def test_pair_descriptions():
    assert describe_pair([0], [0, 1]) == "x=[0], x'=[0, 1] (x' adds the record 1)"
    assert describe_pair([3, 1, 2], [1, 2]) == "x=[3, 1, 2], x'=[1, 2] (x adds the record 3)"
    assert "(2 vs 1 records)" in describe_pair([1, 2], [5])
    assert describe_pair(0.0, 1.0) == "x=0, x'=1"
    assert "differ at 1 entry: [3] 0 vs 1" in describe_pair(np.zeros(20), np.eye(20)[3])
    assert describe_pair("abc", "abd") == "x='abc', x'='abd'"
    assert isinstance(neighbour_pair([0.0, 1.0], [1.0, 1.0], compiled=True)[0], np.ndarray)   # a catalog sampler's
    assert isinstance(neighbour_pair([0.0, 1.0], [1.0, 1.0])[0], Verbatim)                    # anything else's
    assert isinstance(neighbour_pair([0.0], [0.0, 1.0])[0], Verbatim)
    with pytest.raises(InputError, match="finite"):
        neighbour_pair([np.nan], [0.0])


def test_a_pair_that_is_not_neighbouring_is_refused_before_sampling():
    """Equal inputs would hide any bug (eps >= 0 always holds); datasets several records apart
    would report a violation of a claim that never covered them."""
    for x, x_prime in [(0, 0), ([1.0, 2.0], [1.0, 2.0]), ("a", "a"), ({"k": 1}, {"k": 1})]:
        with pytest.raises(InputError, match=r"^x and x_prime are equal \("):
            neighbour_pair(x, x_prime)
    with pytest.raises(InputError, match="have 2 and 5 records: datasets neighbouring under add/remove differ "
                                         "by one record"):
        neighbour_pair([0, 0], [0, 0, 0, 0, 1])
    assert isinstance(neighbour_pair([0, 0], [0, 0, 1])[0], Verbatim)        # one record apart: fine
    with pytest.raises(InputError, match="are equal"):                       # before anything is drawn
        verify.audit(lambda x, n, seed: 1 / 0, 0.0, 0.0, eps=1.0)
