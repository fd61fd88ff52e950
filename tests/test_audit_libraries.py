"""DP libraries' own objects audited in one line (verify.audit.libraries): the claim read from the object
and printed with its source, the claim rule (given eps audited, the object's beside it), one-line
refusals, and per library (skipped with its install line where it is not installed) a wrong claim the
law catches and a float-safe mechanism that passes.  The hook and the report are tested without any
library, through a small adapter of a numpy mechanism."""
import json
import math
import re
import sys

import numpy as np
import pytest

import verify
from dpbench import InputError
from dpbench.cli import main
from verify.audit import assert_dp, libraries
from verify.audit.libraries.base import Adapter, Claim, ClaimError, distance_note, implied_delta, zcdp_to_eps
from verify.audit.libraries.opendp import input_distance
from verify.audit.suites import libraries as suite

#: outputs per input: one library call each; OpenDP takes 0.1 - 0.3 ms a call, so its audits draw fewer
N, N_OPENDP = 20_000, 5_000
ALPHA = 1e-6
INSTALL = 'pip install "dpbench[libraries]"'


def need(module: str):
    return pytest.importorskip(module, reason=f"{module} is not installed: {INSTALL}")


# ------------------------------------------------------------------ the hook, with a numpy adapter
class NumpyLaplace:
    """A stand-in library object: Laplace noise of ``scale`` that claims ``epsilon``."""

    def __init__(self, epsilon, scale):
        self.epsilon, self.scale = epsilon, scale


class NumpyAdapter(Adapter):
    name = "numpy-laplace"

    def version(self):
        return "1.0"

    def recognises(self, obj):
        return isinstance(obj, NumpyLaplace)

    def sample(self, obj, x, n, seed):
        return float(x) + np.random.default_rng(seed).laplace(0.0, obj.scale, n)

    def claim(self, obj, x, x_prime, *, d_in=None, delta=None):
        if obj.epsilon is None:
            raise ClaimError("it was built from a noise scale alone")
        return Claim(obj.epsilon, 0.0 if delta is None else delta, f"eps = {obj.epsilon:g} from its epsilon",
                     distance_note(x, x_prime, 1.0))

    def seeding(self, obj):
        return ""

    def default_pair(self, obj):
        return 0.0, 1.0


def numpy_mechanism(epsilon, scale=1.0):
    return libraries.LibraryMechanism(NumpyLaplace(epsilon, scale), NumpyAdapter())


def test_object_claim_is_audited_and_printed_with_its_source():
    res = verify.audit(numpy_mechanism(1.0), n=N, alpha=ALPHA, features=("law",))
    assert (res.eps, res.delta) == (1.0, 0.0) and not res.violated
    assert "claim: eps = 1 from its epsilon" in str(res).splitlines()[1]
    assert res.info["claim"]["given"] is False and res.info["library"]["seeded"] is True
    assert verify.audit(numpy_mechanism(1.0), n=N, alpha=ALPHA, features=("law",), seed=3).law.eps_lower_bound == \
        verify.audit(numpy_mechanism(1.0), n=N, alpha=ALPHA, features=("law",), seed=3).law.eps_lower_bound


def test_given_eps_is_audited_and_the_objects_claim_shown_beside_it():
    res = verify.audit(numpy_mechanism(0.5), 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, features=("law",))
    assert res.eps == 1.0 and not res.violated
    assert "claim: (1, 0) as given; the object claims eps = 0.5 from its epsilon" in str(res)


def test_a_given_eps_below_the_objects_own_claim_names_that_as_the_fix():
    """Laplace(epsilon=1) audited at 0.5 said 'the noise is too small ... calibrate its scale': the plainer
    reason is that the object never claimed 0.5."""
    res = verify.audit(numpy_mechanism(1.0), 0.0, 1.0, eps=0.5, n=N, alpha=ALPHA, features=("law",))
    assert res.law.violated
    assert res.law.fix.startswith("fix: the object claims only eps = 1 from its epsilon, a weaker guarantee than "
                                  "the eps = 0.5 audited, so this violation is expected")


def test_an_object_without_a_claim_is_a_one_line_error_unless_eps_is_given():
    why = r"^NumpyLaplace \(numpy-laplace 1.0\): it was built from a noise scale alone$"
    with pytest.raises(InputError, match=why) as err:
        verify.audit(numpy_mechanism(None), n=N)
    assert "\n" not in str(err.value)
    res = verify.audit(numpy_mechanism(None), 0.0, 1.0, eps=1.0, n=N, alpha=ALPHA, features=("law",))
    assert "the object states none (it was built from a noise scale alone)" in res.info["claim"]["text"]


def test_a_wrong_claim_is_caught_by_the_law_and_assert_dp_names_the_note():
    """Noise of scale 1 claiming eps = 0.5 on inputs 2 apart: violated, the pair's note in the message."""
    with pytest.raises(AssertionError) as err:
        assert_dp(numpy_mechanism(0.5), x=0.0, x_prime=2.0, n=N, law_only=True)
    text = str(err.value)
    assert "VIOLATED by the law" in text and "claim: eps = 0.5 from its epsilon" in text
    assert "note: x and x' are 2 apart, more than the sensitivity 1" in text


def test_a_plain_callable_still_needs_eps():
    with pytest.raises(InputError, match=r"eps: give the claim to audit"):
        verify.audit(lambda x, n, seed: np.zeros(n), 0.0, 1.0, n=N)
    with pytest.raises(InputError, match=r"is not a mechanism object of a supported DP library"):
        libraries.wrap(object())


def test_claim_helpers():
    assert zcdp_to_eps(0.5, 1e-5) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    assert implied_delta(None, 1e-6, "c") == 1e-6 and implied_delta(1e-5, 0.0, "c") == 1e-5
    with pytest.raises(ClaimError, match="claims only c"):
        implied_delta(1e-7, 1e-6, "c")
    assert distance_note(0.0, 1.0, 1.0) == () and "understated" in distance_note([0, 0], [1, 1], 1.0, "L1")[0]
    assert input_distance("AbsoluteDistance", 0.0, 2.5) == 2.5
    assert input_distance("SymmetricDistance", [1, 2, 3], [1, 2, 3, 4]) == 1
    assert input_distance("ChangeOneDistance", [1, 2, 3], [1, 5, 3]) == 1
    assert input_distance("L1Distance", [0.0, 0.0], [1.0, -2.0]) == 3
    assert input_distance("L2Distance", [0.0, 0.0], [3.0, 4.0]) == 5
    assert input_distance("DiscreteDistance", "a", "b") == 1
    assert input_distance("InsertDeleteDistance", [1], [2]) is None


# ------------------------------------------------------------------ the report, from recorded rows
def _layer(violated):
    return {"status": "violated" if violated else "not rejected", "violated": violated,
            "eps_lower_bound": 1.5 if violated else 0.9, "unbounded": False, "p_value": 0.5}


def _row(library="opendp", version="0.5.0", law=False, fp=True):
    layer = _layer
    return {"library": library, "version": version, "case": "Laplace on floats", "why": "", "object": "Measurement",
            "x": 0.0, "x_prime": 1.0, "claim": "eps = 1 from the measurement's privacy map at d_in = 1", "eps": 1.0,
            "delta": 0.0, "law": layer(law), "floating_point": layer(fp), "expect": {"law": "holds",
            "floating_point": "either"}, "headline": "floating_point", "witness": {"pair": [0.0, 1.0], "event":
            "output > 1", "count_x": 10, "count_x_prime": 1, "n_x": 100, "n_x_prime": 100}, "n": 100, "alpha": 1e-3,
            "seed": 0, "samples": 450, "seconds": 1.0, "cpu_seconds": 1.0, "seeded": False, "seeding": "OS",
            "notes": [], "as_expected": True}


def test_report_merges_recorded_rows_and_lists_skipped_libraries_with_install_lines(tmp_path, monkeypatch):
    env = suite.environment("opendp-0.5", "dpbench audit-suite --libraries --library opendp")
    suite.write_rows(tmp_path / "opendp-0.5.json", [_row()], env)
    recorded = suite.read_recorded(tmp_path)
    text = suite.report([_row("diffprivlib", "0.6.6")], {"tmlt.core": "No module named 'tmlt'"}, recorded,
                        "dpbench audit-suite --libraries", "here", 3.0)
    assert "| opendp 0.5.0 | Laplace on floats" in text and "| opendp-0.5 |" in text
    assert "by hand (see the guide's install matrix)" in text          # no install record: said so
    assert "**tmlt.core**: No module named 'tmlt'. Install: `pip install \"dpbench[tumult]\"" in text
    assert "Rows as expected: 2 of 2." in text
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(InputError, match="not a recorded-rows file"):
        suite.read_recorded(tmp_path)


def test_rows_recorded_here_are_the_environment_the_report_names(tmp_path, monkeypatch, capsys):
    """--rows-out over an environment recorded before: the report's environments table gives the
    recording just made (its code stamp and command), not the previous one."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "reports" / "audit_libraries"
    folder.mkdir(parents=True)
    old = dict(suite.environment("here", "an older command"), code="dpbench 0.0.1, git commit 0000000")
    suite.write_rows(folder / "here.json", [_row()], old)
    monkeypatch.setattr(suite, "run_live", lambda only, seed=0: ([_row("diffprivlib", "0.6.6")], {}))
    assert main(["audit-suite", "--libraries", "--rows-out", "reports/audit_libraries/here.json",
                 "--env-name", "here"]) == 0
    text = (tmp_path / "reports" / "audit_libraries.md").read_text()
    assert "an older command" not in text and "git commit 0000000" not in text
    assert "| here | diffprivlib 0.6.6" in text or "`dpbench audit-suite --libraries`" in text


def test_every_case_names_a_known_library_and_expectation():
    names = {a.name for a in libraries.ADAPTERS}
    allowed = {"holds", "violated", "either", "not tested"}
    for case in suite.cases():
        assert case.library in names and set(suite.expected(case, "0.16.0").values()) <= allowed, case.name
    laplace = next(c for c in suite.cases() if c.name == "Laplace on floats")
    assert suite.expected(laplace, "0.5.0")["floating_point"] == "either"
    assert len(suite.cases()) >= 15 and len({c.library for c in suite.cases()}) >= 4


# ------------------------------------------------------------------ diffprivlib
def test_diffprivlib_understated_sensitivity_is_caught_by_the_law():
    mech = need("diffprivlib.mechanisms")
    with pytest.raises(AssertionError) as err:
        assert_dp(mech.Laplace(epsilon=1, sensitivity=0.5), x=0.0, x_prime=1.0, n=N, law_only=True)
    assert "VIOLATED by the law" in str(err.value) and "sensitivity is understated" in str(err.value)


def test_diffprivlib_float_laplace_leaks_and_snapping_passes():
    mech = need("diffprivlib.mechanisms")
    res = verify.audit(mech.Laplace(epsilon=1, sensitivity=1), n=N, alpha=ALPHA)
    assert res.layer_failed == "floating_point" and not res.law.violated
    assert res.info["claim"]["text"] == ("claim: eps = 1 from the mechanism's epsilon, for inputs at most its "
                                         "sensitivity 1 apart")
    assert "not reproducible by seed" in res.warnings[-1]
    assert_dp(mech.Snapping(epsilon=1, sensitivity=1, lower=-100, upper=100), x=0.0, x_prime=1.0, n=N)


def test_diffprivlib_binary_labels_and_refusals():
    mech = need("diffprivlib.mechanisms")
    res = verify.audit(mech.Binary(epsilon=1, value0="no", value1="yes"), n=N, alpha=ALPHA)
    assert not res.violated and "for its two values 'no' and 'yes'" in res.info["claim"]["text"]
    with pytest.raises(InputError, match="its input .the utilities. is fixed when it is built"):
        verify.audit(mech.Exponential(epsilon=1, sensitivity=1, utility=[0, 1, 2]), n=N)


def test_diffprivlib_seeded_object_is_reproducible_by_seed():
    mech = need("diffprivlib.mechanisms")
    lib = libraries.wrap(mech.Laplace(epsilon=1, sensitivity=1, random_state=7))
    assert lib.seeding == "" and np.array_equal(lib(0.0, 5, 11), lib(0.0, 5, 11))
    assert not np.array_equal(lib(0.0, 5, 11), lib(0.0, 5, 12))


# ------------------------------------------------------------------ OpenDP
def _dp():
    dp = need("opendp.prelude")
    dp.enable_features("contrib")
    return dp


def test_opendp_claim_from_the_privacy_map_at_the_pairs_distance():
    dp = _dp()
    lap = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    run = libraries.resolve(lap, 0.0, 2.0, None, None)
    assert run.eps == 2.0 and run.claim.source == ("eps = 2 from the measurement's privacy map at d_in = 2 "
                                                   "(AbsoluteDistance of x and x')")
    gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    run = libraries.resolve(gauss, 0.0, 1.0, None, 1e-6)
    expected = dp.c.make_zCDP_to_approxDP(gauss).map(1.0).epsilon(1e-6)
    assert (run.eps, run.delta) == (expected, 1e-6) and "converted by OpenDP's make_zCDP_to_approxDP" in \
        run.claim.source
    fixed = libraries.resolve(libraries.wrap(lap, d_in=0.5), 0.0, 2.0, None, None)
    assert fixed.eps == 0.5 and "d_in = 0.5 (given)" in fixed.claim.source
    # a given d_in below the pair's distance: said, as the other libraries say an understated sensitivity
    assert fixed.claim.notes == ("x and x' are 2 apart under its input metric AbsoluteDistance, more than the "
                                 "d_in = 0.5 the claim was read at: the claim covers only inputs at most that far "
                                 "apart, so if x and x' are neighbours read it at their distance (leave d_in out) "
                                 "or audit a closer pair",)
    assert libraries.resolve(libraries.wrap(lap, d_in=2), 0.0, 2.0, None, None).claim.notes == ()
    count = dp.t.make_count(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())
    with pytest.raises(InputError, match="a Transformation is deterministic"):
        libraries.wrap(count)


def test_opendp_float_laplace_passes_and_a_halved_map_is_caught():
    dp = _dp()
    lap = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    res = assert_dp(lap, x=0.0, x_prime=1.0, n=N_OPENDP)
    assert res.floating_point.status != "not tested" and "privacy map at d_in = 1" in res.info["claim"]["text"]
    dp.enable_features("honest-but-curious")
    halved = dp.m.make_user_measurement(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                                        dp.max_divergence(), lambda x: float(x + np.random.laplace(0.0, 1.0)),
                                        lambda d_in: d_in / 2)
    with pytest.raises(AssertionError, match="VIOLATED by the law"):
        assert_dp(halved, x=0.0, x_prime=1.0, n=N_OPENDP, law_only=True)


def test_opendp_bad_inputs_are_one_line_errors_before_the_library_sees_them(capsys, tmp_path, monkeypatch):
    """Found by a new user: a text or NaN input to an OpenDP measurement raised the conversion's ValueError (a
    traceback, and exit 1 on the CLI, the code of a violation); a zCDP measurement at delta = 0 blamed an eps
    of inf the user never gave; a negative d_in reached OpenDP (a 300-digit sensitivity in the message)."""
    dp = _dp()
    ints = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    floats = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    gauss = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    for obj, x, shown in [(ints, "a", r"i32 \(integers\); got 'a'"), (ints, 0.5, r"i32 \(integers\); got 0.5"),
                          (floats, float("nan"), r"f64 \(finite numbers\); got nan")]:
        with pytest.raises(InputError, match=f"^the measurement's input is {shown}$"):
            verify.audit(obj, x, 1, n=1000)
    with pytest.raises(InputError, match=r"its claim at delta = 0 is eps = inf .*: audit it at a delta > 0"):
        verify.audit(gauss, 0.0, 1.0, delta=0.0, n=1000)
    with pytest.raises(InputError, match=r"^d_in must be > 0 \(got -1.0\)$"):
        libraries.wrap(floats, d_in=-1)
    (tmp_path / "objs.py").write_text("import opendp.prelude as dp\ndp.enable_features('contrib')\n"
                                      "m = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), "
                                      "scale=1.0)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "objs:m", "--x", '"a"', "--x-prime", '"b"', "--budget", "300", "--no-progress"]) == 2
    assert capsys.readouterr().err.strip() == "dpbench: error: the measurement's input is i32 (integers); got 'a'"


def test_a_function_of_a_dp_library_is_refused_in_one_line(capsys):
    """diffprivlib.tools.mean or OpenDP's make_laplace where a mechanism goes failed on their own terms ("multiple
    values for argument 'epsilon'", "requires 'contrib'"); now the error says what to pass."""
    tools = need("diffprivlib.tools")
    with pytest.raises(InputError, match=r"^mechanism diffprivlib\.tools\..*mean is a function of diffprivlib, "
                                         r"not one of its mechanism objects \(DPMechanism\)"):
        verify.audit(tools.mean, [0.0], [1.0], eps=1.0)
    need("opendp.measurements")
    assert main(["audit", "opendp.measurements:make_laplace", "--eps", "1", "--x", "0", "--x-prime", "1"]) == 2
    err = capsys.readouterr().err
    assert "make_laplace is a function of opendp, not one of its mechanism objects (Measurement)" in err, err


def test_cli_says_an_object_is_not_callable_before_asking_for_eps(capsys, tmp_path, monkeypatch):
    """An object that is neither callable nor a library's was first asked for --eps, then refused."""
    (tmp_path / "things.py").write_text("class Thing:\n    pass\n\nthing = Thing()\n")
    monkeypatch.chdir(tmp_path)
    assert main(["audit", "things:thing", "--no-progress"]) == 2
    assert "'thing' is not callable (nor a DP library's mechanism object)" in capsys.readouterr().err


# ------------------------------------------------------------------ python-dp and PipelineDP
def test_python_dp_laplace_passes_and_gaussian_leaks_in_floating_point():
    nm = need("pydp.algorithms.numerical_mechanisms")
    assert_dp(nm.LaplaceMechanism(1.0, 1.0), n=N)
    res = verify.audit(nm.GaussianMechanism(1.0, 1e-5, 1.0), n=N, alpha=ALPHA)
    assert res.layer_failed == "floating_point" and (res.eps, res.delta) == (1.0, 1e-5)


def test_pipeline_dp_mechanism_from_a_standard_deviation_states_no_claim():
    dc = need("pipeline_dp.dp_computations")
    mech = dc.GaussianMechanism.create_from_std_deviation(2.0, 1.0)
    with pytest.raises(InputError, match=r"was made from a standard deviation \(\d+\), so it carries no \(eps, delta\) "
                                         r"\(its epsilon reads 0\); give eps and delta"):
        verify.audit(mech, n=N)
    lap = libraries.resolve(dc.LaplaceMechanism.create_from_epsilon(0.5, 2.0), None, None, None, None)
    assert (lap.x, lap.x_prime, lap.eps) == (0.0, 2.0, 0.5)


# ------------------------------------------------------------------ Tumult Core (its own environment)
def test_tumult_claims_from_the_privacy_function():
    nm = pytest.importorskip("tmlt.core.measurements.noise_mechanisms",
                             reason='tmlt.core is not installed: pip install "dpbench[tumult]" (numpy < 2)')
    run = libraries.resolve(nm.AddDiscreteGaussianNoise(sigma_squared=1), None, None, None, None)
    assert (run.x, run.x_prime) == (0, 1) and run.eps == pytest.approx(zcdp_to_eps(0.5, 1e-5))
    assert libraries.resolve(nm.AddGeometricNoise(alpha=2), 0, 3, None, None).eps == 1.5


# ------------------------------------------------------------------ the CLI
def test_cli_audits_a_library_object_without_eps(tmp_path, monkeypatch, capsys):
    need("diffprivlib.mechanisms")
    (tmp_path / "mylib.py").write_text("import diffprivlib.mechanisms as M\n"
                                       "understated = M.Laplace(epsilon=1, sensitivity=0.5)\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        status = main(["audit", "mylib:understated", "--x", "0", "--x-prime", "1", "--n", str(N), "--alpha",
                       str(ALPHA), "--no-progress", "--json"])
    finally:
        sys.modules.pop("mylib", None)
    data = json.loads(capsys.readouterr().out)
    assert status == 1 and data["info"]["claim"]["object"]["eps"] == 1.0


def test_cli_needs_eps_for_anything_but_a_library_object(capsys):
    assert main(["audit", "ctb", "--no-progress"]) == 2
    assert "--eps: the claim to audit is required for ctb" in capsys.readouterr().err


@pytest.mark.parametrize("argv, match", [
    (["--libraries", "--scale", "2"], r"--libraries takes no --scale"),
    (["--libraries", "--library", "opendpp"], r"library \(--library\).*opendp"),
    (["--rows-out", "x.json"], r"--rows-out goes with --libraries"),
])
def test_audit_suite_libraries_options(capsys, argv, match):
    assert main(["audit-suite", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(match, err), err


def test_a_suite_row_keeps_an_untested_layer_as_not_tested():
    """A case whose floating-point layer is not tested (integer outputs) gives a row with that
    layer's None kept (no verdict, no bound) and 'not tested' in the table; the suite once stopped
    on it (float(None))."""
    pytest.importorskip("diffprivlib")
    case = next(c for c in suite.cases() if c.library == "diffprivlib" and c.name == "Geometric")
    row = suite.run_case(case, n=2_000)
    fp = row["floating_point"]
    assert fp["status"] == "not tested" and fp["violated"] is None and fp["eps_lower_bound"] is None, fp
    assert suite._cell(fp) == "not tested" and suite._cell(row["law"]).startswith("holds")
    json.dumps(row)



def test_the_pytest_marker_needs_no_eps_for_a_library_object(tmp_path):
    """@pytest.mark.dp(x=0, x_prime=1) with a diffprivlib object was refused ('needs eps, the claim'),
    though assert_dp(obj, x=..., x_prime=...) takes the object's own claim."""
    need("diffprivlib")
    import os
    import pathlib
    import subprocess
    import textwrap
    test_file = tmp_path / "test_marker_library.py"
    test_file.write_text(textwrap.dedent("""
        import pytest
        from diffprivlib.mechanisms import Geometric

        @pytest.mark.dp(x=0, x_prime=1, n=20_000)
        def test_geometric_at_its_own_claim(assert_dp):
            assert_dp(Geometric(epsilon=1, sensitivity=1, random_state=3))
    """))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "verify.pytest_plugin", "-q", "-p", "no:cacheprovider",
                           "--rootdir", str(tmp_path), str(test_file)],
                          capture_output=True, text=True, cwd=str(tmp_path),
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
                               "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[1])})
    assert "1 passed" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
