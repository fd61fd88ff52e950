"""The extension API: registration contracts, check mode, numba errors that name the user's
function, plugins, code stamps of user code and the README example.

The subprocess tests work as a user does, in a folder of their own outside the repository,
with this interpreter: the README example from Python, from the CLI with --plugin and in a
LocalCluster sweep; and a user policy edited between runs (different numbers, a recompiled
kernel, recomputed sweep cells; built-in kernels still cached in another folder)."""
import importlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import dpbench
from dpbench import plugins
from dpbench.engine import stamps
from dpbench.engine.catalog import ALGORITHMS, ENVIRONMENTS, MECHANISMS
from dpbench.extend import Built, ComponentError, Param, draw_sum, implements, init_state, real, respond, select, update
from dpbench.mechanisms.ldp_curators import Direct
from dpbench.validation import InputError

ROOT = Path(__file__).resolve().parents[1]
MEANS = [0.9, 0.6, 0.5]


@pytest.fixture
def registry(tmp_path_factory):
    """Registrations, plugin state, sys.path and the test's own modules are undone after it."""
    base = str(tmp_path_factory.getbasetemp())
    saved = (dict(ALGORITHMS), dict(ENVIRONMENTS), dict(plugins._LOADED), plugins._autoloaded,
             set(sys.modules), list(sys.path), dict(MECHANISMS))
    yield
    for reg, old in ((ALGORITHMS, saved[0]), (ENVIRONMENTS, saved[1]), (MECHANISMS, saved[6])):
        reg.clear()
        reg.update(old)
    plugins._LOADED.clear()
    plugins._LOADED.update(saved[2])
    plugins._autoloaded = saved[3]
    for name in set(sys.modules) - saved[4]:
        if str(getattr(sys.modules[name], "__file__", "")).startswith(base):
            del sys.modules[name]
    sys.path[:] = saved[5]


# ------------------------------------------------------------ test components
class Probe(NamedTuple):
    """A round-robin policy with a switchable contract violation (Python check mode only)."""
    mode: int


@implements(init_state, Probe)
def _probe_init(policy, k, horizon):
    return np.zeros(k), np.zeros(k)


@implements(select, Probe)
def _probe_select(policy, state, t):
    k = state[1].shape[0]
    if policy.mode == 1:
        return k, 1                                  # arm out of range
    if policy.mode == 2:
        return t % k, 0                              # m = 0
    return t % k, 1


@implements(update, Probe)
def _probe_update(policy, state, arm, m, value, level, t):
    sums, counts = state
    if policy.mode == 3:
        counts = counts + m                          # rebinds a name: the state never changes
    else:
        sums[arm] += value
        counts[arm] += m


class Shifted(NamedTuple):
    """Reward + shift, reported with privacy level ``level``."""
    shift: float
    level: float


@implements(respond, Shifted)
def _shifted_respond(mech, env, arm, m):
    return draw_sum(env, arm, m) + mech.shift, mech.level


def _any(name, value):
    return float(value)


@pytest.fixture
def probe(registry):
    dpbench.register_policy(
        "_probe", lambda instance, horizon, mode, shift, level: Built(Probe(mode), Shifted(shift, level)),
        params=(Param("mode", "violation", lambda n, v: int(v), 0), Param("shift", "", _any, 0.0),
                Param("level", "", _any, 0.0)))
    return "_probe"


# --------------------------------------------------------------- registration
def test_register_policy_checks_build_signature_names_and_replacement(registry):
    def build(k, horizon, eps):
        return Built(Probe(0), Direct(False))
    eps = (Param("eps", "privacy level", real(0, low_open=True)),)
    with pytest.raises(ComponentError, match=r"policy 'mine': build must have the signature "
                                             r"build\(instance, horizon, eps\), got build\(k, horizon, eps\)"):
        dpbench.register_policy("mine", build, params=eps)
    spec = dpbench.register_policy("mine", lambda instance, horizon, eps: Built(Probe(0), Direct(False)),
                                   params=eps)
    assert spec.module == __name__ and ALGORITHMS["mine"] is spec
    with pytest.raises(ComponentError, match="already registered.*replace=True"):
        dpbench.register_policy("mine", spec.build, params=eps)
    assert dpbench.register_policy("mine", spec.build, params=eps, label="Mine", replace=True).label == "Mine"
    with pytest.raises(ComponentError, match="'ucb1' is built into dpbench"):
        dpbench.register_policy("ucb1", spec.build, replace=True)
    with pytest.raises(ComponentError, match="'seed' is reserved"):
        dpbench.register_policy("other", lambda instance, horizon, seed: None, params=(Param("seed", "", _any),))
    with pytest.raises(ComponentError, match="environment 'env2': build must have the signature build\\(means\\)"):
        dpbench.register_environment("env2", lambda: None, params=(Param("means", "", _any),))


def test_implements_refuses_contract_breaks_at_registration():
    class Local(NamedTuple):
        x: float

    with pytest.raises(ComponentError, match="returns a value.*in place"):
        @implements(update, Local)
        def bad_update(policy, state, arm, m, value, level, t):
            state[0] += value
            return state
    with pytest.raises(ComponentError, match="parameters must be"):
        @implements(select, Local)
        def bad_names(p, state, t):
            return 0, 1
    with pytest.raises(ComponentError, match="not a typing.NamedTuple"):
        implements(select, dict)(lambda policy, state, t: (0, 1))

    @implements(select, Local)
    def first(policy, state, t):
        return 0, 1
    implements(select, Local)(first)                      # the same function again: fine
    with pytest.raises(ComponentError, match="redefine the class Local"):
        @implements(select, Local)
        def changed(policy, state, t):
            return 1, 1


def test_unregistered_component_and_unknown_name_fail_with_one_line(registry):
    class NoVerbs(NamedTuple):
        x: float
    dpbench.register_policy("_noverbs", lambda instance, horizon: Built(NoVerbs(1.0), Direct(False)))
    with pytest.raises(ComponentError) as err:
        dpbench.simulate("_noverbs", "bernoulli", 100, 1, means=MEANS)
    assert "policy NoVerbs" in str(err.value) and "no registered init_state" in str(err.value)
    with pytest.raises(InputError) as unknown:
        dpbench.simulate("not_registered_anywhere", "bernoulli", 100, 1)
    assert "--plugin MODULE" in str(unknown.value)
    assert "\n" not in str(err.value) + str(unknown.value)


def test_a_policy_without_privacy_is_told_its_mechanism_and_runs_with_it(registry):
    """A new user's non-private policy gave Built(policy, None) and met 'not a typing.NamedTuple
    component' with no word of what to give: the pass-through is dpbench.extend.Direct, named there."""
    dpbench.register_policy("_nopriv", lambda instance, horizon: Built(Probe(0), None))
    with pytest.raises(ComponentError, match=r"gave a mechanism of type NoneType, .*dpbench.extend.Direct"
                                             r"\(sigmoid=False\): the user reports her raw reward"):
        dpbench.simulate("_nopriv", "bernoulli", 100, 1, means=MEANS)
    from dpbench.extend import Direct as Exported
    dpbench.register_policy("_nopriv", lambda instance, horizon: Built(Probe(0), Exported(False)), replace=True)
    assert dpbench.simulate("_nopriv", "bernoulli", 100, 1, means=MEANS).final_regrets.shape == (1,)


# ----------------------------------------------------------------- check mode
@pytest.mark.parametrize("params, message", [
    ({"mode": 1}, r"check: select of policy Probe \(tests.test_extend._probe_select.*arm 3; arms are integers 0..2"),
    ({"mode": 2}, r"select of policy Probe .* m = 0"),
    ({"mode": 3}, r"update of policy Probe \(tests.test_extend._probe_update.* never changed the state"),
    ({"shift": math.inf},
     r"respond of mechanism Shifted \(tests.test_extend._shifted_respond.*responses must be finite"),
    ({"level": -1.0}, r"respond of mechanism Shifted .*privacy level -1.0"),
])
def test_check_mode_names_the_function_that_breaks_its_contract(probe, params, message):
    with pytest.raises(ComponentError, match=message):
        dpbench.simulate(probe, "bernoulli", 200, 2, 1, means=MEANS, check=True, **params)


def test_non_finite_response_stops_a_compiled_run(probe):
    ok = dpbench.simulate(probe, "bernoulli", 300, 2, 1, means=MEANS, shift=0.0)
    assert np.isfinite(ok.regret).all()
    with pytest.raises(ComponentError, match=r"respond of mechanism Shifted \(tests.test_extend._shifted_respond"
                                             r".*non-finite response .* after 0 pulls of repetition 0"):
        dpbench.simulate(probe, "bernoulli", 300, 2, 1, means=MEANS, shift=math.nan)


@pytest.mark.parametrize("mode", [1, 2])
def test_a_select_that_names_no_arm_stops_a_compiled_run(probe, mode):
    """Without check=True too: arm k (mode 1) read past the gaps (a silent regret of 0 or 1e140),
    m = 0 (mode 2) never advanced; the loop stops and the error names the policy's select."""
    with pytest.raises(ComponentError, match=r"select of policy Probe \(tests.test_extend._probe_select"
                                             r".*returned no arm of 0..2 \(or a batch of fewer than 1 pull\) "
                                             r"after \d+ pulls of repetition 0"):
        dpbench.simulate(probe, "bernoulli", 200, 2, 1, means=MEANS, mode=mode)


class BareInt(NamedTuple):
    c: float


class Untypable(NamedTuple):
    c: float


@implements(select, BareInt)
def _bare_select(policy, state, t):
    return t % state.shape[0]                       # forgot the m


@implements(select, Untypable)
def _untypable_select(policy, state, t):
    return int(math.gamma(state)), 1                # math.gamma of an array: numba cannot type it


def _array_init(policy, k, horizon):
    return np.zeros(k)


def _array_update(policy, state, arm, m, value, level, t):
    state[arm] += value


for _cls in (BareInt, Untypable):
    implements(init_state, _cls)(_array_init)
    implements(update, _cls)(_array_update)


@pytest.mark.parametrize("cls, message", [
    (BareInt, r"select of policy BareInt \(tests.test_extend._bare_select.* returns int64; select must return "
              r"a pair \(arm, m\)"),
    (Untypable, r"numba cannot compile select of policy Untypable \(tests.test_extend._untypable_select"),
])
def test_numba_typing_errors_name_the_component_and_verb(registry, cls, message):
    dpbench.register_policy("_typing", lambda instance, horizon: Built(cls(1.0), Direct(False)))
    with pytest.raises(ComponentError, match=message):
        dpbench.simulate("_typing", "bernoulli", 100, 1, means=MEANS)


# --------------------------------------------------------------------- stamps
_STAMPED = '''
from typing import NamedTuple
import numpy as np
from dpbench.extend import implements, select

RATE = {rate}


def helper(t):
    return t % {modulus}


class Stamped(NamedTuple):
    c: float

{blank}
@implements(select, Stamped)
def pick(policy, state, t):
    return helper(t) + int(RATE), 1
'''


def test_fingerprint_covers_helpers_and_constants_not_line_numbers(tmp_path, registry):
    sys.path.insert(0, str(tmp_path))

    def stamp(**kw):
        (tmp_path / "stamped_probe.py").write_text(_STAMPED.format(**{"rate": 1.0, "modulus": 3, "blank": "",
                                                                     **kw}))
        module = importlib.reload(sys.modules["stamped_probe"]) if "stamped_probe" in sys.modules \
            else importlib.import_module("stamped_probe")
        return stamps.classes_stamp([module.Stamped])

    base = stamp()
    assert stamp() == base                                       # re-import of the same code
    assert stamp(blank="\n# a comment and blank lines\n\n") == base
    assert stamp(modulus=4) != base                              # a helper select calls
    assert stamp(rate=2.0) != base                               # a module constant select reads
    assert stamps.classes_stamp([Direct]) == ""                  # built-in: the package hash covers it


def test_builtin_plan_keeps_the_package_stamp():
    from dpbench.engine.simulate import prepare
    from dpbench.sweeps.store import code_stamp
    assert stamps.plan_stamp(prepare("ucb1", "bernoulli", 100, means=MEANS)) == code_stamp()


def test_a_worker_refuses_a_cell_of_other_code():
    from dpbench.engine.simulate import prepare
    from dpbench.sweeps.dask_backend import compute_cell
    from dpbench.sweeps.grid import Config
    plan = prepare("ucb1", "bernoulli", 100, means=MEANS)
    config = Config.from_plan(plan, "bernoulli", {"means": MEANS})
    task = {"config": config.describe(), "config_id": config.config_id, "first_rep": 0, "reps": 1,
            "dpbench": dpbench.__version__, "run": "UCB1", "code_stamp": "0" * 16, "plugins": []}
    with pytest.raises(InputError, match="other code than the client"):
        compute_cell(task)
    with pytest.raises(InputError, match="cannot import plugin module 'no_such_plugin_xyz'"):
        compute_cell({**task, "plugins": [("no_such_plugin_xyz", "/nonexistent")]})


# -------------------------------------------------------------------- plugins
_PLUGIN = '''
import dpbench
from dpbench.extend import Built
from dpbench.mechanisms.ldp_curators import Direct
from dpbench.policies.ucb import UCB1Index
dpbench.register_policy("{name}", lambda instance, horizon: Built(UCB1Index(2.0), Direct(False)),
                        summary="plugin test policy")
'''


def test_plugins_from_option_path_environment_and_entry_points(tmp_path, registry, monkeypatch, capsys):
    from dpbench.cli import main
    monkeypatch.chdir(tmp_path)
    for name in ("plug_a", "plug_b", "plug_c", "plug_d"):
        (tmp_path / f"{name}.py").write_text(_PLUGIN.format(name=f"{name}_policy"))
    (tmp_path / "plug_broken.py").write_text("x = 1\nraise RuntimeError('boom')\n")
    assert main(["list", "policies", "--plugin", "plug_a", "--plugin", str(tmp_path / "plug_b.py")]) == 0
    out = capsys.readouterr().out
    assert "plug_a_policy" in out and "plug_b_policy" in out and "[plugin plug_a]" in out
    assert main(["list", "--plugin", "no_such_plugin_xyz"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "cannot import plugin module 'no_such_plugin_xyz'" in err
    assert main(["list", "--plugin", "plug_broken"]) == 2
    assert re.search(r"plugin module 'plug_broken' failed to import: RuntimeError: boom \(.*plug_broken.py:2\)",
                     capsys.readouterr().err)
    # DPBENCH_PLUGINS and entry points load the first time a name is not known
    monkeypatch.setenv(plugins.ENV_VAR, "plug_c")
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [
        importlib.metadata.EntryPoint("d", "plug_d", plugins.GROUP)] if group == plugins.GROUP else [])
    plugins._autoloaded = False
    assert ALGORITHMS.get_spec("plug_d_policy").module == "plug_d"
    assert "plug_c_policy" in ALGORITHMS
    assert [m for m, _ in plugins.for_workers([ALGORITHMS["plug_c_policy"]])][-2:] == ["plug_c", "plug_d"]


# ------------------------------------------------------------ as a user does
def _user_env():
    """The environment of a user's process; dpbench is this checkout (PYTHONPATH), not whatever
    copy an earlier `pip install .` left in site-packages."""
    env = {k: v for k, v in os.environ.items() if k not in (plugins.ENV_VAR, "PYTHONPATH")}
    return {**env, "NUMBA_DISABLE_JIT": "0", "PYTHONWARNINGS": "ignore", "PYTHONPATH": str(ROOT)}


def _run(args, cwd, check=True):
    proc = subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=_user_env(),
                          timeout=900)
    if check:
        assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


_SIMULATE = '''
import json, sys, dpbench
from dpbench.engine.kernel import simulate_kernel as kernel
dpbench.load_plugins(sys.argv[1:])
out = {{}}
for name, params in {runs}:
    out[name] = dpbench.simulate(name, "bernoulli", 3000, 2, 5, means=[0.9, 0.6, 0.5], **params).final_regrets.tolist()
out["hits"] = sum(kernel.stats.cache_hits.values())
out["misses"] = sum(kernel.stats.cache_misses.values())
print(json.dumps(out))
'''

def test_editing_a_user_policy_recompiles_and_recomputes(tmp_path):
    """The issue's silent wrong numbers: after an edit, simulate reran the stale kernel and a
    sweep reused its cells.  Also: a folder where the user module cannot be imported still
    loads the built-in kernels from the cache (it used to recompile every one of them).
    The user module is the README example, with its exploration rate halved as the edit."""
    user, elsewhere = tmp_path / "user", tmp_path / "elsewhere"
    user.mkdir(), elsewhere.mkdir()
    original = readme_example()
    edited = original.replace("policy.c * k / t", "0.5 * policy.c * k / t")
    assert edited != original
    module = user / "myalgo.py"
    runs = '[("ldp_eps_greedy", {"eps": 0.5}), ("ucb1", {})]'
    module.write_text(original)
    first = json.loads(_run(["-c", _SIMULATE.format(runs=runs), "myalgo"], user).stdout)
    module.write_text(edited)
    second = json.loads(_run(["-c", _SIMULATE.format(runs=runs), "myalgo"], user).stdout)
    assert second["ldp_eps_greedy"] != first["ldp_eps_greedy"]
    assert second["ucb1"] == first["ucb1"] and second["misses"] == 1 and second["hits"] == 1, second
    there = json.loads(_run(["-c", _SIMULATE.format(runs='[("ucb1", {})]')], elsewhere).stdout)
    assert there["misses"] == 0 and there["hits"] == 1, there          # recompilations: 0
    assert there["ucb1"] == first["ucb1"]

    sweep = ["-m", "dpbench", "sweep", "--plugin", "myalgo", "--name", "edits", "--policy", "ldp_eps_greedy",
             "--set", "eps=0.5", "--instance", "means=0.9,0.6,0.5", "--horizon", "3000", "--reps", "2",
             "--seed", "5", "--scheduler", "none", "--json", "--no-progress"]
    before = _run(sweep, user)
    assert json.loads(before.stdout)["cells"]["computed"] == 1
    module.write_text(original)
    after = _run(sweep, user)
    assert json.loads(after.stdout)["cells"] == {"total": 1, "stored": 0, "computed": 1}
    assert "recomputing 1 stored cells computed by other code" in after.stderr
    from dpbench.sweeps.store import ResultStore
    with ResultStore.open(user / "dpbench-results" / "edits" / "results.sqlite") as store:
        (result,) = store.results().values()
    assert result.final_regrets.tolist() == first["ldp_eps_greedy"]


def readme_example() -> str:
    text = (ROOT / "dpbench" / "guides" / "extending.md").read_text()
    match = re.search(r"<!-- example: myalgo.py -->\n```python\n(.*?)```", text, re.S)
    assert match, "the extension guide lost its example"
    return match.group(1)


_README_PYTHON = """
import json, dpbench, myalgo
r = dpbench.simulate('ldp_eps_greedy', 'bernoulli', horizon=2000, reps=2, seed=3, eps=0.5, check=True)
g = dpbench.simulate('ldp_ucb_l', 'bernoulli', horizon=2000, reps=2, seed=3, eps=0.5, mechanism='gaussian_ldp')
print(json.dumps([r.final_regrets.tolist(), g.final_regrets.tolist(), g.label]))
"""


def test_readme_example_from_python_cli_and_a_local_cluster(tmp_path):
    """The README example: its policy, and its Gaussian privatiser as mechanism= of the built-in
    LDP-UCB-L and audited by `dpbench audit` (the same privatize: nothing above its claim)."""
    (tmp_path / "myalgo.py").write_text(readme_example())
    python, composed, label = json.loads(_run(["-c", _README_PYTHON], tmp_path).stdout)
    assert label == "LDP-UCB-L + gaussian_ldp"
    cli = json.loads(_run(["-m", "dpbench", "simulate", "--plugin", "myalgo", "--policy", "ldp_eps_greedy",
                           "--eps", "0.5", "--horizon", "2000", "--reps", "2", "--seed", "3", "--check",
                           "--json"], tmp_path).stdout)
    assert cli["final_regrets"] == python
    cli = json.loads(_run(["-m", "dpbench", "simulate", "--plugin", "myalgo", "--policy", "ldp_ucb_l",
                           "--mechanism", "gaussian_ldp", "--eps", "0.5", "--horizon", "2000", "--reps", "2",
                           "--seed", "3", "--json"], tmp_path).stdout)
    assert cli["final_regrets"] == composed and cli["params"]["mechanism"] == "gaussian_ldp"
    audit = json.loads(_run(["-m", "dpbench", "audit", "--plugin", "myalgo", *_AUDIT, "--json"], tmp_path).stdout)
    assert not audit["violated"] and audit["eps_lower_bound"] <= 1.0
    sweep = _run(["-m", "dpbench", "sweep", "--plugin", "myalgo", "--name", "eg", "--policy",
                  "ldp_eps_greedy,ldp_ucb_l,ucb1", "--grid", "eps=0.5", "--mechanism", "gaussian_ldp",
                  "--horizon", "2000", "--reps", "2", "--seed", "3", "--workers", "1", "--json",
                  "--no-progress"], tmp_path)
    assert json.loads(sweep.stdout)["cells"]["computed"] == 3
    from dpbench.sweeps.store import ResultStore
    with ResultStore.open(tmp_path / "dpbench-results" / "eg" / "results.sqlite") as store:
        results = store.results()
        hosts = {c["worker"] for cid in store.run_configs().values() for c in store.cells(cid)}
    # the README policy's own privatiser is the registered mechanism: mechanism= changes nothing
    assert results["LDP-eps-greedy (eps=0.5, mechanism=gaussian_ldp)"].final_regrets.tolist() == python
    assert results["LDP-UCB-L (eps=0.5, mechanism=gaussian_ldp)"].final_regrets.tolist() == composed
    assert all(h.startswith(("tcp://", "inproc://")) for h in hosts)     # computed on Dask workers


# ------------------------------------------------------------ composable privatisers
#: the audit of the README's Gaussian privatiser (and of the negative control below)
_AUDIT = ["gaussian_ldp", "--eps", "1", "--delta", "0.01", "--n", "200000", "--alpha", "1e-4", "--seed", "7"]


@pytest.fixture
def readme_module(tmp_path, registry):
    """The README example imported in this process (registrations undone afterwards)."""
    (tmp_path / "myalgo.py").write_text(readme_example())
    sys.path.insert(0, str(tmp_path))
    sys.modules.pop("myalgo", None)
    return importlib.import_module("myalgo")


def test_an_audit_catches_a_registered_mechanism_with_half_the_noise(readme_module, capsys):
    """Negative control: the README's privatiser registered with sigma halved, claiming the same
    (eps, delta), is a violation for `dpbench audit` (exit 1); the same component class as the
    README's, so the compiled audit kernels are shared."""
    from dpbench.cli import main
    from dpbench.extend import Mechanism

    def half_noise(eps, delta):
        honest = readme_module.gaussian_mechanism(eps, delta)
        return Mechanism(readme_module.GaussianPrivatiser(0.5 * honest.component.sigma), eps=eps, delta=delta)
    dpbench.register_mechanism("gaussian_half", half_noise, params=MECHANISMS["gaussian_ldp"].params)
    assert main(["audit", "gaussian_half", *_AUDIT[1:], "--json"]) == 1
    res = json.loads(capsys.readouterr().out)
    assert res["violated"] and res["eps_lower_bound"] > 1.5 and res["p_value"] <= 1e-4


def test_a_mechanisms_build_is_part_of_the_run_stamp(readme_module):
    """A stored cell of a run with a user mechanism is recomputed when its build (e.g. the
    noise calibration) changes, even if its component class does not."""
    from dpbench.engine.simulate import prepare

    def stamp():
        return stamps.plan_stamp(prepare("ldp_ucb_l", "bernoulli", 100, means=MEANS, eps=1.0,
                                         mechanism="gaussian_ldp"))
    before = stamp()
    assert before != stamps.plan_stamp(prepare("ldp_ucb_l", "bernoulli", 100, means=MEANS, eps=1.0))
    spec = MECHANISMS["gaussian_ldp"]
    dpbench.register_mechanism("gaussian_ldp", lambda eps, delta: spec.build(eps, delta / 2),
                               params=spec.params, replace=True)
    assert stamp() != before


@pytest.mark.parametrize("policy, mechanism, env", [("ldp_ucb_l", "ctl", "bernoulli"),
                                                    ("ldp_ucb_b", "ctb", "bernoulli"),
                                                    ("ldp_ucb_ls", "ctl_s", "gaussian")])
def test_mechanism_equal_to_the_default_privatiser_gives_identical_numbers(policy, mechanism, env):
    kw = dict(horizon=3000, reps=3, seed=11, means=MEANS, eps=0.7)
    default = dpbench.simulate(policy, env, **kw)
    by_name = dpbench.simulate(policy, env, mechanism=mechanism, **kw)
    by_object = dpbench.simulate(policy, env, mechanism=dpbench.sampler(mechanism, eps=0.7), **kw)
    assert np.array_equal(default.regret, by_name.regret) and np.array_equal(default.pulls, by_name.pulls)
    assert np.array_equal(default.regret, by_object.regret)
    assert "mechanism" not in default.params and by_name.params["mechanism"] == mechanism
    assert not by_object.warnings
    # a mechanism object at another eps than the policy's runs (a misspecified policy can be the experiment),
    # but never silently: a Python warning, and the label and parameters name the mechanism's eps
    with pytest.warns(UserWarning, match=rf"^mechanism {mechanism} claims eps = 2, policy {policy} runs with "
                                         rf"eps = 0.7: the policy's confidence bounds assume its own eps"):
        other = dpbench.engine.simulate.prepare(policy, env, 100, means=MEANS, eps=0.7,
                                                mechanism=dpbench.sampler(mechanism, eps=2.0))
    assert len(other.warnings) == 1 and other.label.endswith(f" + {mechanism}(eps=2)")
    assert other.run_params["eps"] == 0.7 and other.run_params["mechanism_eps"] == 2.0


@pytest.mark.parametrize("args, message", [
    (["--policy", "ldp_ucb_b", "--mechanism", "ctl"],
     "policy 'ldp_ucb_b' cannot use mechanism 'ctl': the policy needs bit reports (0 or 1) and the "
     "mechanism's output_kind is 'real'"),
    (["--policy", "ldp_ucb_l", "--mechanism", "ctl", "--rewards", "gaussian"],
     "policy 'ldp_ucb_l' cannot use mechanism 'ctl' on environment 'gaussian': the mechanism takes rewards in "
     "[0, 1]"),
    (["--policy", "heldp_ucb_l", "--mechanism", "ctl"],
     "policy 'heldp_ucb_l' cannot use mechanism 'ctl': its privatiser is part of the algorithm"),
    (["--policy", "ldp_ucb_l", "--mechanism", "lemma15", "--delta", "0.1"],
     "policy 'ldp_ucb_l' cannot use mechanism 'lemma15': the mechanism is not a local randomiser"),
    (["--policy", "ldp_ucb_l", "--mechanism", "no_such_mechanism"], "unknown mechanism 'no_such_mechanism'"),
])
def test_incompatible_mechanism_is_one_line_exit_2_before_compiling(args, message, capsys, monkeypatch):
    from dpbench.cli import main
    from dpbench.engine import simulate as sim
    monkeypatch.setattr(sim, "compile_plan", lambda plan: pytest.fail("compiled before refusing"))
    assert main(["simulate", *args, "--eps", "1", "--horizon", "100", "--means", "0.9,0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpbench: error: ") and err.count("\n") == 1 and message in err, err


def test_mechanism_in_an_experiment_file_and_a_sweep_grid(tmp_path, capsys):
    """`mechanism` is a run key of experiment files and a grid axis of `dpbench sweep`
    (--mechanism): it applies to the policies that take one, its parameters to it alone, and
    a stored cell records it; an incompatible one is refused before anything runs."""
    from dpbench.cli import main
    from dpbench.sweeps.store import ResultStore
    toml = tmp_path / "mech.toml"
    toml.write_text('name = "mech"\nhorizon = 2000\nreps = 2\nseed = 4\n[environment]\nname = "bernoulli"\n'
                    'means = [0.9, 0.6, 0.5]\n[[runs]]\nlabel = "L+CTB"\npolicy = "ldp_ucb_l"\neps = 0.7\n'
                    'mechanism = "ctb"\n')
    common = ["--scheduler", "none", "--out", str(tmp_path / "out"), "--json", "--no-progress"]
    assert main(["sweep", str(toml), *common]) == 0
    assert json.loads(capsys.readouterr().out)["cells"]["computed"] == 1
    with ResultStore.open(tmp_path / "out" / "mech" / "results.sqlite") as store:
        (stored,) = store.results().values()
    direct = dpbench.simulate("ldp_ucb_l", "bernoulli", 2000, 2, 4, means=MEANS, eps=0.7, mechanism="ctb")
    assert np.array_equal(stored.regret, direct.regret) and stored.params["mechanism"] == "ctb"
    own = dpbench.simulate("ldp_ucb_l", "bernoulli", 2000, 2, 4, means=MEANS, eps=0.7)
    assert not np.array_equal(own.regret, direct.regret)          # CTB bits did replace CTL

    grid = ["sweep", "--name", "g", "--policy", "ucb1,ldp_ucb_l", "--mechanism", "ctl,ctb", "--set", "eps=0.7",
            "--instance", "means=0.9,0.6,0.5", "--horizon", "2000", "--reps", "2", "--seed", "4", *common]
    assert main(grid) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cells"]["total"] == 3                       # UCB1 once, LDP-UCB-L with each mechanism
    with ResultStore.open(tmp_path / "out" / "g" / "results.sqlite") as store:
        results = store.results()
    assert np.array_equal(results["LDP-UCB-L (mechanism=ctb)"].regret, direct.regret)
    assert main([*grid[:4], "ucb1", *grid[5:]]) == 2          # no listed policy takes a mechanism
    assert "unknown parameter 'mechanism' for the listed policies (ucb1)" in capsys.readouterr().err
    toml.write_text(toml.read_text().replace('"ldp_ucb_l"', '"ldp_ucb_b"').replace('"ctb"', '"ctl"'))
    assert main(["sweep", str(toml), *common, "--force"]) == 2
    assert "mech, run 'L+CTB': policy 'ldp_ucb_b' cannot use mechanism 'ctl'" in capsys.readouterr().err


def test_a_mechanism_must_be_a_mechanism_with_a_privatize(registry):
    class NoReport(NamedTuple):
        x: float
    from dpbench.extend import Mechanism
    with pytest.raises(ComponentError, match="NoReport .* has no registered privatize"):
        Mechanism(NoReport(1.0), eps=1.0)
    dpbench.register_mechanism("_not_a_mechanism", lambda eps: NoReport(eps),
                               params=(Param("eps", "", real(0, low_open=True)),))
    with pytest.raises(ComponentError, match=r"mechanism '_not_a_mechanism': build .* must return a "
                                             r"dpbench.extend.Mechanism"):
        dpbench.simulate("ldp_ucb_l", "bernoulli", 100, 1, means=MEANS, eps=1.0, mechanism="_not_a_mechanism")
    with pytest.raises(ComponentError, match=r"mechanism 'bad': build must have the signature build\(eps\)"):
        dpbench.register_mechanism("bad", lambda scale: None, params=(Param("eps", "", real(0, low_open=True)),))
    with pytest.raises(ComponentError, match="'ctl' is built into dpbench"):
        dpbench.register_mechanism("ctl", lambda: None, replace=True)


class Leaky(NamedTuple):
    """Bernoulli arms whose arm 1 sometimes returns ``bad`` (NaN, or 2 outside the declared [0, 1])."""
    means: np.ndarray
    bad: float


@implements(dpbench.extend.draw, Leaky)
def _leaky_draw(env, arm):
    if arm == 1 and np.random.random() < 0.01:
        return env.bad
    return 1.0 if np.random.random() < env.means[arm] else 0.0


@pytest.mark.parametrize("bad", [math.nan, 2.0])
def test_check_mode_names_an_environment_whose_rewards_break_its_range(registry, bad):
    """A NaN reward reaches a randomised-response curator as a comparison that is False: the run
    stays finite and wrong, so check mode draws the environment's rewards on their own."""
    dpbench.register_environment(
        "leaky", lambda means=(0.9, 0.5): dpbench.extend.Instance(
            Leaky(np.asarray(means, dtype=float), bad), np.asarray(means, dtype=float), 0.0, 1.0),
        params=(Param("means", "arm means", dpbench.extend.vector(0, 1), (0.9, 0.5)),))
    res = dpbench.simulate("ldp_ucb_b", "leaky", 2000, 2, 1, eps=1.0)    # silent without the check
    assert np.isfinite(res.regret).all()
    with pytest.raises(ComponentError, match=r"^check: draw of environment Leaky \(tests.test_extend._leaky_draw "
                                             r".*returned the reward (nan|2.0) for arm 1; rewards must be finite "
                                             r"and within the declared \[0, 1\]"):
        dpbench.simulate("ldp_ucb_b", "leaky", 2000, 2, 1, eps=1.0, check=True)
