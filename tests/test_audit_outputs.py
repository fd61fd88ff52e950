"""What a mechanism may return: numbers, vectors or labels (strings, tuples, a "bottom"
symbol among numbers), and a clear InputError naming the mechanism and the input when it
raises, returns non-finite values, the wrong number of outputs, or changes type or width."""
import numpy as np
import pytest

import verify
from dpbench import InputError
from verify.audit.source import LABEL_BASE, as_rows, label_value

N = 100_000
ALPHA = 1e-6


def randomised_response(p_truth):
    """Labels "yes"/"no": the true answer (x >= 0.5) with probability p_truth."""
    def mech(x, n, seed):
        rng = np.random.default_rng(seed)
        truth = "yes" if x >= 0.5 else "no"
        lie = "no" if truth == "yes" else "yes"
        return np.where(rng.random(n) < p_truth, truth, lie)
    mech.__name__ = f"rr({p_truth:g})"
    return mech


def test_string_labels_are_categories():
    e1 = np.e / (1 + np.e)                      # exactly eps = 1
    assert not verify.audit(randomised_response(e1), 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, seed=1).violated
    res = verify.audit(randomised_response(0.9), 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, seed=1)
    assert res.violated and 1.5 < res.eps_lower_bound <= np.log(9)
    assert set(res.info["output_labels"].values()) == {"yes", "no"}


def thresholded_geometric(x, n, seed, eps=1.0, threshold=3):
    """A two-sided geometric (discrete Laplace) count released only at or above a threshold,
    the label "bottom" otherwise: Python ints and strings in one list."""
    rng = np.random.default_rng(seed)
    q = np.exp(-eps)
    v = int(x) + rng.geometric(1 - q, n) - rng.geometric(1 - q, n)
    return [int(a) if a >= threshold else "bottom" for a in v]


def test_bottom_symbol_among_numbers():
    assert not verify.audit(thresholded_geometric, 0, 1, eps=1.0, n=N, alpha=ALPHA, seed=2).violated
    with pytest.warns(UserWarning, match=r"runs with its own default eps=1.0, not the claimed eps=0.5"):
        res = verify.audit(thresholded_geometric, 0, 1, eps=0.5, n=N, alpha=ALPHA, seed=2)
    assert res.violated and 0.6 < res.eps_lower_bound <= 1.0 and res.mechanism == "thresholded_geometric(eps=1.0)"


def test_label_numbers_are_fixed_and_consistent():
    assert label_value("3") == 3.0 and label_value("2.5") == 2.5
    assert label_value("bottom") == label_value("bottom") >= LABEL_BASE
    assert label_value("bottom") == 1.5337334941660068e+18           # the same in every run and process
    assert label_value("nan") >= LABEL_BASE               # a non-finite number is a label, not NaN
    # the same label gets the same number whatever else the batch holds
    a, labels_a = as_rows(["bottom", 3, 4], 3, "m", 0.0)
    b, labels_b = as_rows(np.array(["5", "bottom", "bottom"]), 3, "m", 1.0)
    assert a[0, 0] == b[1, 0] and a[1, 0] == 3.0 and b[0, 0] == 5.0
    assert (labels_a, labels_b) == (1, 2)
    tuples, _ = as_rows([("a", 1), ("b", 2), ("a", 1)], 3, "m", 0.0)     # tuples: one label per entry
    assert tuples.shape == (3, 2) and np.array_equal(tuples[0], tuples[2])
    ragged, _ = as_rows([(1,), (1, 2), (1,)], 3, "m", 0.0)                 # ragged: one label per output
    objects = np.array([np.float64(3.0), "bottom", 4], dtype=object)          # numbers keep their value
    assert as_rows(objects, 3, "m", 0.0)[0][:, 0].tolist() == [3.0, label_value("bottom"), 4.0]
    assert ragged.shape == (3, 1) and ragged[0, 0] == ragged[2, 0] != ragged[1, 0]


def _named(func, name="leaky"):
    func.__name__ = name
    return func


@pytest.mark.parametrize("mech,match", [
    (lambda x, n, seed: np.zeros(n) if x == 0 else 1 / 0,
     r"mechanism leaky raised ZeroDivisionError on input 1: division by zero"),
    (lambda x, n, seed: np.zeros(n) if x == 0 else np.zeros((n, 2)),
     r"mechanism leaky returned outputs of width 2 on input 1 but width 1 on input 0"),
    (lambda x, n, seed: np.zeros(n) if x == 0 else np.full(n, "label"),
     r"mechanism leaky returned only labels on input 1 but only numbers on input 0"),
    (lambda x, n, seed: np.zeros(n) if x == 0 else np.full(n, np.inf),
     r"mechanism leaky returned \d+ non-finite value\(s\) on input 1"),
    (lambda x, n, seed: np.zeros(n - 1), r"mechanism leaky returned shape \(\d+,\) for n=\d+ on input 0"),
    (lambda x, n, seed: 1.0, r"mechanism leaky returned shape \(\) for n=\d+ on input 0"),
])
def test_bad_outputs_name_the_mechanism_and_the_input(mech, match):
    with pytest.raises(InputError, match=match):
        verify.audit(_named(mech), 0.0, 1.0, eps=1.0, n=10_000)


def test_crash_on_a_dataset_names_the_dataset():
    def mean(x, n, seed):
        return np.full(n, sum(x) / len(x))
    with pytest.raises(InputError, match=r"mechanism mean raised ZeroDivisionError on input \[\]") as err:
        verify.audit(mean, [], [1.0], eps=1.0, n=10_000)
    assert isinstance(err.value.__cause__, ZeroDivisionError)      # the traceback is kept in Python


def test_too_few_samples_keeps_the_floor_message():
    with pytest.raises(InputError, match=r"cannot certify anything.*resolution floor.*use n >= \d+"):
        verify.audit(thresholded_geometric, [0], [0, 1], eps=5.0, n=100, alpha=1e-6)
