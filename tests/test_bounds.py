"""The bounds registry: every paper's theorems are found (through the entry-point group
``dpbench.papers``), looked up by key, policy, seed and side, evaluated on a context built from a
simulation result, and a bad context is refused.  Each paper's values: tests/papers/seed<NNN>/."""
import pytest

import dpbench
from dpbench.environments import TWENTY_ARM_MEANS
from verify import bounds

TWENTY = dict(means=list(TWENTY_ARM_MEANS), environment="bernoulli")


def test_instance_sums():
    from verify.bounds.registry import _complete, sum_gaps, sum_inverse_gaps
    ctx = _complete(dict(TWENTY))
    assert sum_inverse_gaps(ctx) == pytest.approx(101.667, rel=1e-5)
    assert sum_gaps(ctx) == pytest.approx(4.6)


# ------------------------------------------------------------------ registry
REQUIRED_KEYS = [
    "seed000.thm1", "seed000.thm4", "seed000.thm6", "seed000.cor10", "seed000.cor11",
    "seed001.thm4", "seed001.thm7", "seed001.cor8", "seed001.thm10", "seed001.cor11",
    "seed001.cor13_l", "seed001.cor13_b",
    "seed002.thm4", "seed002.thm11", "seed002.thm13", "seed002.thm16", "seed002.thm18",
    "seed003.thm2", "seed003.thm4", "seed003.thm5", "seed003.thm7", "seed003.thm8", "seed003.thm9",
    "seed003.thm10", "seed004.thm1", "seed004.thm2", "seed004.thm3", "seed004.lower",
]


def test_registry_holds_every_theorem_with_citation_and_kind():
    for key in REQUIRED_KEYS:
        b = bounds.get(key)
        assert b.side in ("upper", "lower") and b.form in ("explicit", "asymptotic", "order")
        assert b.theorem and b.source and b.statement and b.algorithms
    with pytest.raises(dpbench.InputError, match="unknown bound"):
        bounds.get("seed000.thm99")


def test_bounds_for_matches_policy_names_and_labels():
    keys = {b.key for b in bounds.bounds_for("ldp_ucb_b")}
    assert {"seed000.thm1", "seed000.thm6", "seed000.thm6_free"} <= keys
    assert "seed000.thm4" not in keys
    assert {b.key for b in bounds.bounds_for("ucb1")} == {"auer2002.ucb1"}
    if "dp_robust_ucb" in dpbench.ALGORITHMS:       # seed 003 policies matched by name or label
        assert "seed003.thm2" in {b.key for b in bounds.bounds_for("dp_robust_ucb")}
    assert all(b.seed == "002" for b in bounds.bounds_for(seed="002"))
    assert all(b.side == "lower" for b in bounds.bounds_for(side="lower"))


def test_context_from_a_simulation_result():
    res = dpbench.simulate("heldp_ucb_b", "bernoulli", 200, 2, 1, means=[0.9, 0.8, 0.5],
                           eps_dist="discrete", eps_min=1.0)
    ctx = bounds.context(res)
    assert ctx["T"] == 200 and ctx["K"] == 3 and ctx["environment"] == "bernoulli"
    assert ctx["gaps"] == pytest.approx([0.0, 0.1, 0.4])
    assert ctx["p0"] == pytest.approx(0.6) and ctx["eps_min"] == 1.0 and ctx["eps_max"] == 100.0
    ev = bounds.get("seed001.thm10").evaluate(ctx)
    assert ev.applicable and ev.value > 0 and ev.trivial == pytest.approx(80.0)
    assert ev.vacuous                                        # at T = 200 the bound says nothing


def test_bad_context_is_refused():
    with pytest.raises(dpbench.InputError, match="gaps"):
        bounds.get("seed000.thm6").evaluate(gaps=[0.1], eps=1.0, T=10)
    with pytest.raises(dpbench.InputError, match="gaps"):
        bounds.get("seed000.thm6").evaluate(gaps=[0.1, float("nan")], eps=1.0, T=10)


def test_papers_are_found_by_their_folders_and_entry_points(monkeypatch):
    """verify names no paper: the registry holds a paper's bounds once the paper is loaded; its
    experiments are the files of its folder; a paper in a package of its own is an entry point of
    dpbench.papers."""
    from types import SimpleNamespace

    from dpbench import plugins
    from dpbench.experiments.runner import experiment_files
    papers = plugins.paper_packages()
    assert list(papers)[:5] == ["seed000", "seed001", "seed002", "seed003", "seed004"]
    for name in papers:
        assert bounds.bounds_for(seed=name), name
    for exp, path in experiment_files().items():
        paper = exp.split("_", 1)[0]
        assert path.parent == plugins.paper_folder(paper) / "experiments", exp
    outside = SimpleNamespace(name="zz_outside", module="somewhere.zz_outside")
    monkeypatch.setattr(plugins.importlib.metadata, "entry_points", lambda group: [outside])
    assert plugins.paper_packages()["zz_outside"] == "somewhere.zz_outside"


def test_verify_loads_no_paper_and_names_what_to_load():
    """verify's registry imports no paper (issue 42): in a fresh process, importing verify.bounds and
    asking for a bound loads nothing and the error names how to load the papers; after
    dpbench.papers.load() the bound is there."""
    import subprocess
    import sys
    code = ("import sys, verify.bounds as b\n"
            "assert not [m for m in sys.modules if m.startswith('dpbench.papers.')], 'a paper was imported'\n"
            "assert b.bounds_for() == []\n"
            "try:\n    b.get('seed000.thm6')\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
            "from dpbench import papers\npapers.load()\nprint(b.get('seed000.thm6').key)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "InputError unknown bound 'seed000.thm6': no loaded paper registers it" in out
    assert "dpbench.papers.load()" in out and out.strip().endswith("seed000.thm6")


def test_a_paper_is_found_by_its_folder():
    """Every folder of dpbench/papers/ with a claims.toml is a paper, with no entry in pyproject.toml."""
    from pathlib import Path

    import dpbench.papers
    from dpbench import plugins
    root = Path(dpbench.papers.__file__).parent
    folders = sorted(p.name for p in root.iterdir() if (p / "claims.toml").is_file())
    assert list(plugins.paper_packages()) == folders and len(folders) >= 5
    pyproject = (root.parents[1] / "pyproject.toml").read_text()
    assert not [name for name in folders if name in pyproject]
