"""Two layers in every audit, from the same samples: the law (the mechanism as if its arithmetic were
exact) and the floating point.  The CLI's exit status (0 / 1 law / 3 floating point only / 2),
JSON with a "law" and a "floating_point" object, readable witnesses (labels, binades, big sets),
bounds capped by n said so, non-finite outputs refused, assert_dp and its law-only option (the
pytest marker's law_only: tests/test_audit.py::test_pytest_plugin_marker_and_fixture)."""
import functools
import json
import sys
import textwrap
from typing import NamedTuple

import numpy as np
import pytest

import dpbench
import verify
from dpbench import InputError
from dpbench.cli import main
from dpbench.engine.catalog import MECHANISMS
from dpbench.extend import Mechanism, Param, implements, privatize, real

N = 100_000
ALPHA = 1e-4

#: the most common mechanism there is, as a user writes it (float noise added in floating point), a
#: float-safe version (noise and input on a 2^-20 lattice), and a doubled sensitivity beside a float leak
MECHS = textwrap.dedent("""
    import numpy as np

    def noisy_count(x, n, seed, scale=1.0):
        return float(np.sum(x)) + np.random.default_rng(seed).laplace(0.0, scale, n)

    def snap(v):
        return np.round(np.asarray(v, dtype=float) * 2.0 ** 20) / 2.0 ** 20

    def lattice_count(x, n, seed, scale=1.0):
        return snap(float(np.sum(x))) + snap(np.random.default_rng(seed).laplace(0.0, scale, n))

    def doubled_count(x, n, seed, scale=1.0):
        return 2.0 * float(np.sum(x)) + np.random.default_rng(seed).laplace(0.0, scale, n)
""")


@pytest.fixture(scope="module")
def mechs():
    namespace: dict = {}
    exec(MECHS, namespace)
    return namespace


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "usermechs.py").write_text(MECHS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield "usermechs"
    sys.modules.pop("usermechs", None)


def cli(capsys, *argv):
    status = main(["audit", *argv, "--n", str(N), "--alpha", str(ALPHA), "--no-progress"])
    out = capsys.readouterr()
    return status, out.out, out.err


ADD_ONE = ["--eps", "1", "--x", "[0]", "--x-prime", "[0, 1]"]


# ------------------------------------------------------------------ the numpy Laplace count
def test_numpy_laplace_count_correct_noise_is_a_float_leak_only(workdir, capsys):
    """The law holds (not rejected, bound just under 1); the floating point leaks: exit 3, one
    line per layer, the fix named, the bound's cap by n said next to it."""
    status, out, _ = cli(capsys, f"{workdir}:noisy_count", *ADD_ONE)
    assert status == 3, out
    lines = out.splitlines()
    assert "VIOLATED by the floating point only (the law holds)" in lines[0]
    law = next(line for line in lines if line.strip().startswith("law:"))
    fp = next(line for line in lines if line.strip().startswith("floating point:"))
    assert "law: not rejected -- eps >= 0.9" in law and "fix" not in law
    assert "floating point: VIOLATED" in fp and "fix: noise and input on a lattice" in fp
    assert "the true loss may be far larger, even unbounded" in fp and f"n = {N:,} samples certify at most" in fp
    assert "|output| in [" in fp and "e+18" not in out


def test_numpy_laplace_count_half_noise_violates_the_law(workdir, capsys):
    """Half the noise: the law is violated (eps about 2), next to the float leak: exit 1, and the
    JSON has both layers' verdict, bound, p-value and witness."""
    status, out, _ = cli(capsys, f"{workdir}:noisy_count", *ADD_ONE, "--param", "scale=0.5", "--json")
    data = json.loads(out)
    assert status == 1
    for layer in ("law", "floating_point"):
        assert {"violated", "eps_lower_bound", "p_value", "witness"} <= set(data[layer])
        assert data[layer]["violated"] and data[layer]["p_value"] <= ALPHA
    assert data["layer_failed"] == "law" and data["violated"]
    assert 1.7 < data["law"]["eps_lower_bound"] <= 2.0
    assert data["floating_point"]["eps_lower_bound"] > 5 and data["floating_point"]["limited_by_n"]
    assert data["eps_lower_bound"] == data["law"]["eps_lower_bound"]       # the headline is the law


def test_float_leak_beside_a_doubled_sensitivity_shows_the_law(mechs):
    """A float leak never masks a law bug: the law layer certifies about 2 eps."""
    res = verify.audit(mechs["doubled_count"], [0], [0, 1], eps=1.0, n=N, alpha=ALPHA, seed=2)
    assert res.law.violated and 1.7 < res.law.eps_lower_bound <= 2.0, str(res)
    assert res.floating_point.violated and res.layer_failed == "law"
    assert res.witness == res.law.witness and "output" in res.law.witness["event"]
    text = str(res)
    assert "VIOLATED by the law (and the floating point)" in text
    assert "law: VIOLATED" in text and "floating point: VIOLATED" in text


def test_float_safe_mechanism_passes_both_layers(workdir, capsys, mechs):
    """Noise and input on a 2^-20 lattice: x + noise is exact, both layers hold (exit 0)."""
    res = verify.audit(mechs["lattice_count"], [0], [0, 1], eps=1.0, n=N, alpha=ALPHA, seed=2)
    assert not res.violated and res.layer_failed is None, str(res)
    assert res.floating_point.status == "not rejected" and res.law.eps_lower_bound > 0.9
    status, out, _ = cli(capsys, f"{workdir}:lattice_count", *ADD_ONE)
    assert status == 0 and "audit of lattice_count against (1, 0)-DP: not rejected" in out


def test_a_law_bug_on_a_lattice_is_not_blamed_on_the_floating_point():
    """Half the noise on the lattice: the law is violated; granularity classes exceed the claim
    too (they carry the binade, i.e. the magnitude), but within each binade they tell the inputs
    apart no better, so the floating point is not blamed."""
    from verify.audit.suites import planted
    res = verify.audit(planted.generator_laplace(2.0, True), 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, seed=4)
    assert res.layer_failed == "law" and not res.floating_point.violated, str(res)
    assert res.floating_point.strata_p_value is not None


def _signed_zero_count(x, n, seed, normalise=False):
    """A rounded Laplace count whose law does not depend on x: only the sign of a zero output does
    ((x - 0.5) * 0.0 is -0.0 for x = 0), as a whole-number mechanism computed in floating point leaks."""
    out = (float(x) - 0.5) * 0.0 + np.round(np.random.default_rng(seed).laplace(0.0, 1.0, n))
    return out + 0.0 if normalise else out


def test_the_sign_of_a_zero_is_the_floating_points_leak_not_the_laws():
    """-0.0 and 0.0 are one number: the law holds; the floating point, which reads whole numbers too
    when a negative zero shows, certifies the leak and names its fix.  Normalised (+ 0.0), both hold."""
    res = verify.audit(_signed_zero_count, 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, seed=3)
    assert res.layer_failed == "floating_point" and not res.law.violated, str(res)
    assert res.witness["event"] == "output == -0.0 (a negative zero)", res.witness
    assert "fix: add 0.0 to each output" in res.floating_point.fix
    assert "-0" not in res.law.witness["event"]
    fixed = verify.audit(functools.partial(_signed_zero_count, normalise=True), 0.0, 1.0, eps=1.0, n=N,
                         alpha=ALPHA, seed=3)
    assert not fixed.violated and fixed.layer_failed is None, str(fixed)


def test_a_count_read_by_category_gets_the_counts_fix_and_labels_the_general_one():
    """A count with half its noise got "remove it; otherwise more randomisation" when its outputs were
    integers (the category feature) but "calibrate its scale" as floats (the value feature): the fix
    follows the event's outputs, numbers or labels, not the feature that happened to win."""
    def geometric_count(x, n, seed):
        rng = np.random.default_rng(seed)
        return len(x) + rng.geometric(1 - np.exp(-2.0), n) - rng.geometric(1 - np.exp(-2.0), n)

    def yes_no(x, n, seed):
        return np.where((np.random.default_rng(seed).random(n) < 0.9) == (x == 1), "yes", "no")

    count = verify.audit(geometric_count, [0], [0, 1], eps=1.0, n=N, alpha=ALPHA, features=("category",))
    assert count.law.violated and "the noise is too small for the sensitivity" in count.law.fix, str(count)
    labels = verify.audit(yes_no, 0, 1, eps=1.0, n=N, alpha=ALPHA, features=("category",))
    assert labels.law.violated and labels.law.fix.startswith("an output (or a set of outputs)"), str(labels)


# ------------------------------------------------------------------ readable witnesses
def test_distinct_numbers_never_print_alike():
    """Outputs near 1e15 read 'one of 8 values in [1e+15, 1e+15]': whole numbers print exactly (up to
    2^53), a range whose ends print alike at 4 digits prints them in full; -0.0 reads 0."""
    from verify.audit.features.base import number
    from verify.audit.features.ranked import value_range
    assert [number(v) for v in (1e15 + 3, 1e15 + 4, -0.0, 2.5, 1234567.0)] == \
        ["1000000000000003", "1000000000000004", "0", "2.5", "1234567"]
    assert number(2.0 ** 60) == "1.15292e+18"                 # beyond 2^53 a float is no exact whole number
    assert value_range(np.array([1e15 + 1, 1e15 + 8])) == "[1000000000000001, 1000000000000008]"
    assert value_range(np.array([0.1 + 1e-9, 0.1 + 2e-9])) == "[0.100000001, 0.100000002]"
    assert value_range(np.array([-8.0, 2.0])) == "[-8, 2]"


def test_labels_are_shown_as_labels():
    """Strings, booleans and tuples in the witness as the labels, never as hash numbers."""
    def binary(x, n, seed):                      # a diffprivlib-style Binary mechanism: two labels
        keep = np.random.default_rng(seed).random(n) < (0.9 if x else 0.1)
        return np.where(keep, "value1", "value0")

    def coin(x, n, seed):
        return np.random.default_rng(seed).random(n) < (0.8 if x else 0.2)

    def pair(x, n, seed):
        heads = np.random.default_rng(seed).random(n) < (0.8 if x else 0.2)
        return [("heads", 1) if h else ("tails", 0) for h in heads]

    for mech, names in ((binary, ("value0", "value1")), (coin, ("True", "False")), (pair, ("heads", "tails"))):
        res = verify.audit(mech, 0, 1, eps=1.0, n=N, alpha=ALPHA, seed=1)
        event = res.law.witness["event"]
        assert res.law.violated and any(name in event for name in names), event
        assert "e+18" not in event and "e+17" not in event, event
        assert res.floating_point.status == "not tested"


def test_a_set_of_thousands_of_values_is_described_not_listed():
    """A mechanism whose noise is zero on one input: the witness is that one value."""
    def mech(x, n, seed):
        noise = np.random.default_rng(seed).laplace(0.0, 1.0, n)
        return np.full(n, 0.5) if x == 0 else np.round(0.5 + noise, 6)

    res = verify.audit(mech, 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, seed=1)
    assert res.law.witness["event"] in ("output == 0.5", "output != 0.5"), res.law.witness
    assert res.law.unbounded and res.law.limited_by_n and "never occurred under x'" in str(res)


def test_a_passing_layer_shows_one_short_event(mechs):
    """Not rejected: the most informative event, summarised (no long list that reads like a leak)."""
    res = verify.audit(mechs["lattice_count"], [0], [0, 1], eps=1.0, n=N, alpha=ALPHA, seed=2)
    event = res.floating_point.witness["event"]
    assert len(event) < 200 and "; " not in event, event


# ------------------------------------------------------------------ non-finite outputs
class NaNOnOne(NamedTuple):
    """A privatiser that returns NaN for the input 1 (and is exact elsewhere)."""

    p: float


@implements(privatize, NaNOnOne)
def _nan_report(mech, r, public):
    if r == 1.0:
        return np.nan
    return 1.0 if np.random.random() < mech.p else 0.0


@pytest.fixture
def nan_mechanism():
    """The registered mechanism ``nan_on_one`` (the registration is undone afterwards)."""
    saved = dict(MECHANISMS)
    dpbench.register_mechanism("nan_on_one", lambda eps: Mechanism(NaNOnOne(0.5), eps=eps, input_range=(0, 1)),
                               params=(Param("eps", "privacy level", real(0, low_open=True)),))
    yield "nan_on_one"
    MECHANISMS.clear()
    MECHANISMS.update(saved)


def test_nan_from_a_registered_mechanism_is_refused(nan_mechanism, capsys):
    """By `dpbench audit NAME` (exit 2, one line naming the mechanism and the input) and by the
    sampler (InputError), as simulate and the module:function audit do."""
    assert main(["audit", nan_mechanism, "--eps", "1", "--n", "20000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "mechanism nan_on_one(eps=1.0) returned" in err and "non-finite" in err and "input 1" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    sampler = dpbench.sampler(nan_mechanism, eps=1.0)
    assert sampler(0.0, 100, 1).shape == (100,)
    with pytest.raises(InputError, match=r"nan_on_one .*non-finite.* input 1"):
        sampler(1.0, 100, 1)


def test_non_finite_counts_on_the_compiled_path_are_refused():
    """A compiled mechanism whose rare outputs are NaN: refused at certification too."""
    from verify.audit import fast
    seeds = fast.block_seeds(1, 50_000)
    edges = np.array([0.5])
    spec = fast.make_spec(fast.VALUE)
    (hist,), bad = fast.count_bins(NaNOnOne(0.5), np.ones(1), seeds, 50_000, 1, [(spec, edges, None)])
    assert bad == 50_000 and hist.sum() == 0


# ------------------------------------------------------------------ assert_dp and pytest
def test_assert_dp_fails_on_either_layer_and_can_check_the_law_only(mechs):
    leak = mechs["noisy_count"]
    with pytest.raises(AssertionError) as err:
        verify.assert_dp(leak, [0], [0, 1], eps=1.0, n=N)
    msg = str(err.value)
    assert "VIOLATED by the floating point only" in msg and "floating point: certified eps >=" in msg
    assert "fix: noise and input on a lattice" in msg
    res = verify.assert_dp(leak, [0], [0, 1], eps=1.0, n=N, law_only=True)
    assert not res.violated and res.floating_point.status == "not tested" and res.law.alpha == res.alpha
    # an untested layer reads as what it is, never as a pass: no verdict, no bound, no p-value
    fp = res.floating_point
    assert (fp.violated, fp.eps_lower_bound, fp.p_value) == (None, None, None) and res.status == "not rejected"
    assert str(res).splitlines()[2].startswith("  floating point: not tested (no floating point feature asked for)")
    with pytest.raises(AssertionError, match="law: certified eps >="):
        verify.assert_dp(mechs["doubled_count"], [0], [0, 1], eps=1.0, n=N, law_only=True)


def test_features_are_checked_and_explained(capsys):
    with pytest.raises(InputError, match="unknown feature 'granularity'; allowed values: auto, law, floating_point"):
        verify.audit(lambda x, n, seed: np.zeros(n), 0, 1, eps=1.0, features=("granularity",))
    for empty in ((), ("",), " , "):             # it named a feature never asked for (the likelihood)
        with pytest.raises(InputError, match=r"^features: an empty list asks for no statistic; allowed values: auto"):
            verify.audit(lambda x, n, seed: np.zeros(n), 0, 1, eps=1.0, features=empty)
    assert main(["audit", "ctb", "--eps", "1", "--features", ""]) == 2
    assert capsys.readouterr().err.startswith("dpbench: error: features: an empty list asks for no statistic")
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    text = capsys.readouterr().out
    from verify.audit.features import choices
    for name, help_line in choices():
        assert f"  {name:<16}{help_line}" in text
    for code in ("0  neither layer", "1  the law is violated", "3  only the floating point", "2  bad input"):
        assert code in text


def test_a_tiny_audit_warns_of_nothing_and_says_why_the_floating_point_is_untested():
    """n = 10: no RuntimeWarning from comparing vacuous proxies, and the untested floating-point
    layer names both possible reasons (integer outputs, or too few outputs for a class to repeat)."""
    import warnings

    def lap(x, n, seed):
        return float(np.sum(x)) + np.random.default_rng(seed).laplace(0.0, 1.0, n)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = verify.audit(lap, [0.0], [1.0], eps=1.0, n=10, seed=0)
    assert res.floating_point.status == "not tested"
    assert ("whole numbers (of any type) or labels, or 20 selection outputs per input are too few"
            in res.floating_point.note)


def test_a_floating_point_layer_holding_above_the_claim_says_why_at_once():
    from verify.audit.result import LayerResult

    w = {"x": 0.0, "x_prime": 1.0, "event": "output > 1", "count_x": 500, "count_x_prime": 40}
    fp = LayerResult("floating_point", "not rejected", eps_lower_bound=2.467, p_value=0.4, alpha=0.025, witness=w,
                     note="its event exceeds the claim only as much as the magnitude of the outputs does")
    fp.strata_p_value = 0.3
    line = fp.line(1000, 1.0)
    assert line == ("floating point: not rejected (its bound's excess over the claim is the law's, not the "
                    "arithmetic's; within binades p-value 0.3) -- eps >= 2.467, p-value 0.4; strongest event found: "
                    "output > 1")
    plain = LayerResult("floating_point", "not rejected", eps_lower_bound=0.4, p_value=0.9, alpha=0.025, witness=w)
    assert plain.line(1000, 1.0).startswith("floating point: not rejected -- eps >= 0.4")


def test_the_pytest_plugin_imports_nothing_heavy_and_verify_audit_stays_the_function():
    """The plugin is loaded by every pytest run of an environment with dpbench installed, so importing it
    must not bring numba, scipy, statsmodels or dpbench (1.9 s when verify imported its names eagerly);
    ``verify.audit`` is the audit function whichever of its subpackage's modules was imported first."""
    import subprocess
    code = ("import sys, verify.pytest_plugin\n"
            "heavy = [m for m in ('numba', 'scipy', 'statsmodels', 'dpbench') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "from verify.audit.suites import planted\n"
            "import verify, verify.audit.stages.sequential\n"
            "from verify.audit.engine import audit\n"
            "assert verify.audit is audit and verify.assert_dp.__module__ == 'verify.audit.assertions'\n"
            "from verify.audit import Domain\n"
            "assert Domain.__module__ == 'verify.audit.inputs' and 'audit' in dir(verify)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
