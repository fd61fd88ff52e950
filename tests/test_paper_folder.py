"""A user's paper through the path of the shipped ones: ``dpbench report ./mypaper``.

The README's example (three claims about its ``ldp_eps_greedy``) built from a temporary folder as
the README shows; a folder with its own bounds and measurements; bad claims tables refused in
one line naming the file, the claim and the key before anything runs; library warnings said in
the report's words; the front page's pieces."""
import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import dpbench
from dpbench.cli import main
from dpbench.reporting import build_report
from dpbench.reporting.claims import Check, ClaimResult, Decision, Exact, Outcome, Verdict
from dpbench.reporting.front_page import SMOKE_CAUSE, location, short, smoke
from verify.inference import Estimate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _registries():
    """A paper folder's bounds.py registers its bounds in this process: undo it (and forget the
    folder's modules) after each test, so no other test sees them."""
    from dpbench.plugins import load_papers
    from verify.bounds import registry
    load_papers()                        # the installed papers' bounds stay registered
    before = dict(registry.BOUNDS)
    modules = set(sys.modules)
    yield
    registry.BOUNDS.clear()
    registry.BOUNDS.update(before)
    for name in set(sys.modules) - modules:
        if name.startswith("_dpbench_paper_"):
            del sys.modules[name]


def readme_blocks() -> dict[str, str]:
    """The guides' example files (``<!-- example: PATH -->`` before a fenced block), by path: the
    policy of the extension guide and the paper folder of the own-paper guide."""
    text = "".join((ROOT / "dpbench" / "guides" / name).read_text() for name in ("extending.md", "own_paper.md"))
    found = dict(re.findall(r"<!-- example: (\S+) -->\n```[a-z]*\n(.*?)```", text, re.S))
    wanted = {"myalgo.py", "mypaper/claims.toml", "mypaper/paper.toml", "mypaper/experiments/eg_vs_ucb.toml"}
    assert wanted <= set(found)
    return found


def readme_report_command() -> str:
    text = (ROOT / "dpbench" / "guides" / "own_paper.md").read_text()
    command = re.search(r"```bash\n(dpbench report [^\n#]*)", text).group(1).strip()
    assert command == "dpbench report ./mypaper --plugin myalgo"
    return command


def _env():
    env = {k: v for k, v in os.environ.items() if k not in ("DPBENCH_PLUGINS", "PYTHONPATH")}
    return {**env, "NUMBA_DISABLE_JIT": "0", "PYTHONPATH": str(ROOT)}


def test_readme_paper_builds_from_a_temporary_folder(tmp_path):
    """The README's example folder, its command as written: every claim decided (all three
    reproduced at the stated sizes), the front page first, the figure redrawn and linked."""
    for name, body in readme_blocks().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    args = readme_report_command().split()[2:]
    proc = subprocess.run([sys.executable, "-m", "dpbench", "report", *args, "--no-progress"], cwd=tmp_path,
                          capture_output=True, text=True, env=_env(), timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "RuntimeWarning" not in proc.stderr and "Traceback" not in proc.stderr
    text = (tmp_path / "reports" / "mypaper.md").read_text()
    rows = {r["id"]: r for r in json.loads((tmp_path / "reports" / "mypaper_claims.json").read_text())}
    assert {k: r["verdict"] for k, r in rows.items()} == dict.fromkeys(("eg.log_T", "eg.below_ucb", "gauss.audit"),
                                                                     "reproduced")
    assert [x["key"] for x in rows["eg.below_ucb"]["readings"]] == ["horizon=T1e4", "horizon=T1e5"]
    assert rows["eg.log_T"]["readings"][0]["reading"] == "as stated"
    front = text.split("## Figures", 1)[0]
    assert "## Findings" in front and "## At a glance" in front and "### Fig. 1" in front and "### Theorem 1" in front
    assert "## Readings: what the paper leaves open" in text
    assert "[eg.below_ucb](#claim-eg.below_ucb)" in front and "(#figure-eg_vs_ucb)" in front
    png = tmp_path / "reports" / "mypaper_eg_vs_ucb.png"
    assert 5_000 < png.stat().st_size < 200_000
    assert '<a id="claim-gauss.audit"></a>' in text and "mypaper/claims.toml" in text


# ------------------------------------------------------------------ a folder with its own parts
_CLAIMS = """
[[claim]]
id = "order"
where = "Fig. 1(a)"
statement = "UCB1 below uniform play"
test = "ordering"
experiment = "small"
runs = ["UCB1", "uniform"]

[[claim]]
id = "bound"
where = "Theorem 2"
statement = "UCB1's regret is below the paper's explicit bound"
test = "bound"
bound = "{paper}.thm2"

[[claim]]
id = "constant"
where = "Lemma 3"
statement = "the paper's constant is 2"
test = "value"
measure = "the_constant"
expected = 2.0
tolerance = 0.0
effect = 1.0
"""

_EXPERIMENT = """
name = "small"
title = "Fig. 1(a): UCB1 against uniform play"
horizon = 3000
reps = 4
seed = 3
yscale = "log"

[environment]
name = "bernoulli"
means = [0.9, 0.5]

[[runs]]
label = "UCB1"
policy = "ucb1"

[[runs]]
label = "uniform"
policy = "ucb1_sigmoid"
"""

_BOUNDS = """
from verify import bounds
bounds.register(bounds.Bound(
    key="{paper}.thm2", seed="{paper}", theorem="Theorem 2", source="a test paper", side=bounds.UPPER,
    form=bounds.EXPLICIT, statement="R(T) <= 8 sum ln T / gap + 2 sum gap", algorithms=("ucb1",), privacy="none",
    needs=("gaps", "T"), value=lambda ctx: sum(8 * __import__("math").log(ctx["T"]) / g + 2 * g
                                               for g in ctx["gaps"] if g > 0), anytime=True))
"""

_REPORT = """
MEASUREMENTS = {"the_constant": lambda claim, ev: 2.0}
"""


def _paper(tmp_path, name="userpaper", claims=_CLAIMS, experiment=_EXPERIMENT, extra=True) -> Path:
    folder = tmp_path / name
    (folder / "experiments").mkdir(parents=True)
    (folder / "claims.toml").write_text(claims.replace("{paper}", name))
    (folder / "experiments" / "small.toml").write_text(experiment)
    if extra:
        (folder / "bounds.py").write_text(_BOUNDS.replace("{paper}", name))
        (folder / "report.py").write_text(_REPORT)
        (folder / "paper.toml").write_text('title = "A user paper"\ncitation = "Me (2026)"\n')
    return folder


def test_a_folder_with_its_own_bounds_and_measurements(tmp_path):
    folder = _paper(tmp_path, "userpaper_a")
    path = build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=lambda _: None)
    rows = {r["id"]: r for r in json.loads((tmp_path / "out" / "userpaper_a_claims.json").read_text())}
    assert rows["constant"]["verdict"] == "reproduced"                   # its own measurement
    assert rows["bound"]["verdict"] != "not checked", rows["bound"]       # its own registered bound
    assert rows["order"]["verdict"] in {v.value for v in Verdict} - {"not checked"}
    text = path.read_text()
    assert text.startswith("# A user paper\n") and "*Me (2026)*" in text
    assert "`dpbench report " in text and str(folder) in text


def _error(tmp_path, claims=_CLAIMS, experiment=_EXPERIMENT, name="bad"):
    folder = _paper(tmp_path, name, claims, experiment, extra=False)
    with pytest.raises(dpbench.InputError) as err:
        build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=lambda _: None)
    assert not (tmp_path / "res").exists() and not (tmp_path / "out").exists()     # nothing ran
    assert "\n" not in str(err.value)
    return str(err.value)


def test_a_claim_naming_a_missing_run_or_experiment_fails_before_anything_runs(tmp_path):
    text = _error(tmp_path / "a", _CLAIMS.replace('"uniform"]', '"uniform play"]'))
    assert "claims.toml: claim 'order': key 'runs': no run 'uniform play' in experiment 'small'" in text
    text = _error(tmp_path / "b", _CLAIMS.replace('experiment = "small"', 'experiment = "smal"'))
    assert "claim 'order': key 'experiment': no experiment 'smal' (did you mean small?)" in text
    text = _error(tmp_path / "c", _CLAIMS.replace('runs = ["UCB1", "uniform"]', 'runs = "UCB1"'))
    assert ("claim 'order': key 'runs' must be a list of run labels (got the string 'UCB1'; "
            "write runs = ['UCB1'])") in text


def test_a_claim_horizon_beyond_its_experiment_or_not_a_number_fails_before_anything_runs(tmp_path):
    order = 'runs = ["UCB1", "uniform"]'
    text = _error(tmp_path / "a", _CLAIMS.replace(order, order + "\nhorizon = 1e7", 1))
    assert ("claims.toml: claim 'order': key 'horizon': T = 10,000,000 is beyond the horizon experiment "
            "'small' runs to (T = 3,000)") in text
    text = _error(tmp_path / "b", _CLAIMS.replace(order, order + '\nhorizon = "abc"', 1))
    assert "claims.toml claim 'order': key 'horizon' must be a number >= 1" in text and "'abc'" in text


def test_an_audit_claims_mechanism_and_parameters_are_checked_before_anything_runs(tmp_path):
    audit = ('\n[[claim]]\nid = "priv"\nwhere = "Thm 1"\nstatement = "private"\ntest = "computed"\n'
             'measure = "mechanism_audit"\nargs = {{ mechanism = "{}", params = {{ {} }}, x = 0.0, x_prime = 1.0 }}\n')
    order = _CLAIMS.split("[[claim]]")[1]                  # the claims that need no extra parts
    text = _error(tmp_path / "a", "[[claim]]" + order + audit.format("ctll", "eps = 1.0"))
    assert "claims.toml: claim 'priv': key 'args': unknown mechanism 'ctll'" in text
    text = _error(tmp_path / "b", "[[claim]]" + order + audit.format("ctl", "epz = 1.0"))
    assert "claim 'priv': key 'args': unknown parameter 'epz' for mechanism 'ctl'; did you mean eps?" in text


def test_a_misspelt_claim_key_is_named_with_its_likely_intent(tmp_path):
    text = _error(tmp_path, _CLAIMS.replace("statement =", "statment =", 1))
    assert "claims.toml claim 1 ('order'): lacks 'statement' (is 'statment' a misspelling of it?)" in text


def test_unknown_kind_and_wide_tolerance_fail_before_anything_runs(tmp_path):
    text = _error(tmp_path / "a", _CLAIMS.replace('test = "ordering"', 'test = "orderin"'))
    assert "claims.toml: claim 'order': key 'test': unknown test 'orderin' (did you mean 'ordering'?); allowed: " \
        in text
    text = _error(tmp_path / "d", _CLAIMS.replace('test = "ordering"', 'test = "flatening"'))
    assert "claim 'order': key 'test': unknown test 'flatening' (did you mean 'flattening'?)" in text
    text = _error(tmp_path / "b", _CLAIMS.replace("tolerance = 0.0", "tolerance = 1.5"))
    assert "claims.toml" in text and "claim 'constant'" in text and "'tolerance'" in text
    text = _error(tmp_path / "c", _CLAIMS.replace('measure = "the_constant"', 'measure = "the_konstant"'))
    assert "claim 'constant': key 'measure': no measurement 'the_konstant'" in text


def test_paper_toml_is_checked_before_anything_runs(tmp_path):
    for name, meta, wanted in (("p1", 'titel = "x"\n', "unknown key(s) titel"),
                               ("p2", '[figures.smal]\nx = "eps"\n', "figures.smal: no experiment 'smal'"),
                               ("p3", '[figures.small]\ny = "eps"\n', "figures.small: unknown key(s) y"),
                               ("p4", 'title = 5\n', "key 'title' must be text (write title = \"...\"; got 5)")):
        folder = _paper(tmp_path, name, extra=False)
        (folder / "paper.toml").write_text(meta)
        with pytest.raises(dpbench.InputError, match=re.escape(wanted)):
            build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=lambda _: None)
        assert not (tmp_path / "res").exists()


def test_a_day_long_build_is_refused_before_any_experiment_runs(tmp_path, capsys):
    """The issue's build: a small experiment sorted first and a day-long one after it.  The whole
    build is estimated first: refused in one line before the small one runs, leaving no result
    store; ``report`` takes ``--yes`` like the other commands."""
    folder = _paper(tmp_path, "longpaper")
    huge = _EXPERIMENT.replace('name = "small"', 'name = "z_huge"').replace("horizon = 3000", "horizon = 1e14")
    (folder / "experiments" / "z_huge.toml").write_text(huge)
    with pytest.raises(dpbench.InputError, match=r"estimated run time of the build of longpaper .* more than a day"):
        build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=lambda _: None)
    assert not (tmp_path / "res").exists() and not (tmp_path / "out").exists()
    assert main(["report", str(folder), "--results", str(tmp_path / "res"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "opt in to run it anyway (--yes; in Python allow_long=True)" in err
    assert not (tmp_path / "res").exists()
    from dpbench.cli import build_parser
    assert build_parser().parse_args(["report", str(folder), "--yes"]).yes


def test_cli_refuses_a_bad_claims_table_with_exit_2(tmp_path, capsys):
    folder = _paper(tmp_path, "clibad", _CLAIMS.replace('"uniform"]', '"uniforme"]'), extra=False)
    assert main(["report", str(folder), "--results", str(tmp_path / "r"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "key 'runs': no run 'uniforme'" in err and "did you mean 'uniform'" in err
    assert main(["report", str(tmp_path / "nowhere")]) == 2
    assert "no paper folder" in capsys.readouterr().err
    assert main(["report", "9"]) == 2
    assert "unknown paper '9'" in capsys.readouterr().err


def test_library_warnings_are_said_in_the_reports_words(tmp_path, capsys):
    report = "import warnings\n\ndef noisy(claim, ev):\n" \
             "    warnings.warn('divide by zero encountered in scalar divide', RuntimeWarning)\n    return 2.0\n\n" \
             "MEASUREMENTS = {'the_constant': noisy}\n"
    folder = _paper(tmp_path, "noisy", extra=False)
    (folder / "report.py").write_text(report)
    (folder / "bounds.py").write_text(_BOUNDS.replace("{paper}", "noisy"))
    path = build_report(folder, quick=True, results_dir=tmp_path / "res", out_dir=tmp_path / "out",
                        log=lambda _: None)
    text = path.read_text()
    section = text.split("## Warnings during this build", 1)[1]
    assert "zero spread" in section and "RuntimeWarning" in section and "divide by zero" in section
    assert "RuntimeWarning" not in capsys.readouterr().err


# ------------------------------------------------------------------ the front page's pieces
def test_location_groups_by_figure_then_theorem():
    assert location("Sec. 8, Fig. 4(a); spec C17") == "Fig. 4"
    assert location("v000 App. B, Fig. 2(a)") == "Fig. 2"
    assert location("v000 Thm 6 Remark i") == "Theorem 6"
    assert location("Theorem 3 (privacy)") == "Theorem 3"
    assert location("v001 Corollary 11 Remark iv") == "Corollary 11"
    assert location("Remark 2 (Omega(sqrt T + log T/eps))") == "Remark 2"
    assert location("spec ambiguity register: rounding") == "Other"
    assert short("word " * 40).endswith("…") and len(short("word " * 40)) <= 110


def _result(verdict, comparison):
    from dpbench.reporting.claims import Claim, ReadingResult
    claim = Claim("x", "Fig. 1", "s", "value", {})
    reading = ReadingResult(claim, Outcome("m"), verdict, "detail", "", (Decision(comparison, verdict, "text"),))
    return ClaimResult(claim, (reading,), verdict, 0.01, "", 1, "paper: Fig. 1")


def test_a_smoke_build_decides_nothing_from_its_runs():
    random = _result(Verdict.REPRODUCED, Check(Estimate(1.0, 0.1, reps=4), 0.0, 2.0))
    against = _result(Verdict.CONTRADICTED, Check(Estimate(5.0, 0.1, reps=4), 0.0, 2.0))
    exact = _result(Verdict.REPRODUCED, Exact(True, "constant"))
    out = smoke([random, against, exact])
    assert [r.verdict for r in out] == [Verdict.INCONCLUSIVE, Verdict.INCONCLUSIVE, Verdict.REPRODUCED]
    assert out[0].cause == SMOKE_CAUSE and "would" not in out[2].detail and "'contradicted'" in out[1].detail
    assert not math.isnan(out[0].alpha)


def test_the_runs_95_band_is_drawn_visibly(tmp_path):
    """dpbench run's regret.png: the band outlined, its half-width at T in the legend and, below
    the curves, the band as a percentage of the mean (on a log axis a +-1% band at 60 repetitions
    is thinner than the line)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dpbench.experiments.outputs import band_strip, draw_band, plot_regret
    from dpbench.experiments.runner import load_experiment
    result = dpbench.simulate("ucb1", "bernoulli", horizon=2000, reps=60, seed=1, means=[0.9, 0.8])
    lo, hi = result.ci95
    half = 100 * (hi[-1] - lo[-1]) / 2 / result.mean[-1]
    fig, ax = plt.subplots()
    line = draw_band(ax, result.checkpoints, result.mean, lo, hi, None, "UCB1", reps=result.reps)
    assert f"±{half / 100:.1%}" in line.get_label()
    strip = band_strip(ax, [(result.checkpoints, result.mean, lo, hi, line.get_color())])
    assert half <= strip.get_ylim()[1] < 4 * half + 1 and strip.get_ylim()[0] == -strip.get_ylim()[1]
    plt.close(fig)
    exp = load_experiment("seed000_fig1a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot_regret(exp, {"UCB1": result}, exp.runs[:1], tmp_path / "regret.png")
    assert 5_000 < (tmp_path / "regret.png").stat().st_size < 200_000


def test_the_rebuild_command_names_the_plugins_the_build_loaded():
    """A report built with --plugin names it in its rebuild command: without it the command
    would not find the user's policy."""
    from dpbench.reporting.context import ReportContext
    ctx = ReportContext("mypaper", target="./mypaper", plugins=("myalgo",), results_dir=Path("r"))
    assert ctx.command() == "dpbench report ./mypaper --plugin myalgo --results r"
    assert ReportContext("seed002", target="002").command() == "dpbench report 002"
    # a smoke build in its default folder names the full build without --out (it goes to reports/)
    quick = ReportContext("seed002", target="002", quick=True, out_dir=Path("reports/quick"))
    assert quick.command(quick=False) == "dpbench report 002" and quick.command() == "dpbench report 002 --quick"
    assert ReportContext("seed002", target="002", out_dir=Path("reports/quick")).command() == \
        "dpbench report 002 --out reports/quick"


def test_a_claim_judged_below_its_horizon_says_at_which_checkpoint(tmp_path):
    """A claim at T = 2,500 on an experiment run to 3,000 is judged at the largest stored
    checkpoint at or below 2,500, and its row says so (it used to be silent)."""
    order = 'runs = ["UCB1", "uniform"]'
    folder = _paper(tmp_path, "userpaper_t", claims=_CLAIMS.replace(order, order + "\nhorizon = 2500", 1))
    build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=lambda _: None)
    rows = {r["id"]: r for r in json.loads((tmp_path / "out" / "userpaper_t_claims.json").read_text())}
    text = json.dumps(rows["order"])
    assert "the largest checkpoint at or below the claim's T = 2,500)" in text, text[:600]


def test_two_papers_with_an_experiment_of_one_name_share_a_results_folder(tmp_path):
    """A copied folder whose experiment keeps its name but changes a parameter: both reports build
    from one results folder, each from its own runs, and neither refuses or discards the other's
    (before, each needed --force, which threw the other paper's results away)."""
    logs = []
    first = _paper(tmp_path, "paper_one")
    second = _paper(tmp_path, "paper_two", experiment=_EXPERIMENT.replace("[0.9, 0.5]", "[0.8, 0.7]"))
    for folder in (first, second, first):
        build_report(folder, results_dir=tmp_path / "res", out_dir=tmp_path / "out", log=logs.append)
    assert sum("reusing" in line for line in logs) >= 2, logs            # the third build computed nothing
    assert "paper_one" in next(line for line in reversed(logs) if "reusing" in line)


def test_a_report_never_names_a_folder_of_the_machine_that_built_it(tmp_path, monkeypatch):
    """Reports are committed and read elsewhere: a results or report folder outside the build's
    folder is printed by its name only, one inside it relative to it, in the rebuild command, the
    store line and the timings recorded before the rule (absolute paths there are rewritten)."""
    from dpbench.reporting.context import ReportContext, shown_command, shown_path
    inside = tmp_path / "work"
    (inside / "store").mkdir(parents=True)
    monkeypatch.chdir(inside)
    outside = tmp_path / "elsewhere" / "store_1"
    assert shown_path(outside) == ".../store_1" and str(tmp_path) not in shown_path(outside / "x.sqlite")
    assert shown_path(inside / "store") == "store" and shown_path(Path("a/b")) == "a/b"
    ctx = ReportContext("seed002", target="002", results_dir=outside, out_dir=inside / "out")
    assert ctx.command() == "dpbench report 002 --results .../store_1 --out out"
    assert ctx.shown_store == str(Path(".../store_1") / "reports" / "results.sqlite")
    assert shown_command(f"dpbench report 000 --results {outside} --plugin m") == \
        "dpbench report 000 --results .../store_1 --plugin m"
