"""Shipped experiments validate; the runner writes outputs, reuses and resumes runs."""
import json
import sqlite3

import numpy as np
import pytest

from dpbench.cli import main
from dpbench.engine.simulate import Interrupted, run_plan
from dpbench.experiments import experiment_names, load_experiment, plan_runs, run_experiment, runner


@pytest.mark.parametrize("name", experiment_names())
def test_every_shipped_experiment_is_valid(name):
    exp = load_experiment(name)
    assert exp.name == name and exp.runs
    plan_runs(exp, exp.horizon, exp.seed)          # validation only: no compilation


def test_run_writes_figure_table_and_results(tmp_path, capsys):
    assert main(["run", "seed000_fig1a", "--horizon", "3000", "--reps", "3", "--out", str(tmp_path),
                 "--no-progress", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    d = tmp_path / "seed000_fig1a"
    for name in ("regret.png", "table.md", "table.csv", "experiment.json"):
        assert (d / name).stat().st_size > 0
    with sqlite3.connect(d / "results.sqlite") as db:           # the result store: one row per run
        assert db.execute("SELECT COUNT(*), SUM(reps) FROM summary").fetchone() == (3, 9)
    rows = {r["label"]: r for r in out["table"]}
    assert "ratio" in rows["LDP-UCB-L"]["horizons"]["3000"]
    meta = json.loads((d / "experiment.json").read_text())
    assert meta["config"]["seed"] == 2000011 and "numba" in meta["versions"]
    import csv
    with open(d / "table.csv") as fh:                 # every parameter a column: tables join on them
        table = list(csv.DictReader(fh))
    assert list(table[0])[:14] == ["panel", "label", "policy", "environment", "reps", "horizon", "mean_regret",
                                   "stderr", "ratio", "ratio_ci_low", "ratio_ci_high", "eps", "delta", "env.means"]
    by_label = {r["label"]: r for r in table if r["horizon"] == "3000"}
    assert by_label["UCB1"]["eps"] == "" and float(by_label["LDP-UCB-L"]["eps"]) > 0
    assert by_label["UCB1"]["env.means"] == by_label["LDP-UCB-L"]["env.means"] != ""
    assert {r["reps"] for r in table} == {"3"}
    text = (d / "table.md").read_text()                # 3 repetitions: every interval marked thin
    assert "T = 3,000, seed 2000011, 3 repetitions per run." in text
    assert text.count("⚠") >= 2 * len(by_label) and "⚠ intervals from fewer than 10 repetitions (3)" in text


def test_interrupted_run_resumes_to_identical_results(tmp_path, monkeypatch):
    clean = run_experiment("seed000_fig1c", horizon=2000, reps=5, out=tmp_path / "clean", progress=False,
                           log=lambda m: None)
    calls = {"n": 0}

    def flaky(plan, reps, **kw):
        calls["n"] += 1
        if calls["n"] == 3:                      # third run: finish 2 repetitions, then "Ctrl-C"
            raise Interrupted(run_plan(plan, 2, **kw))
        return run_plan(plan, reps, **kw)

    monkeypatch.setattr(runner, "run_plan", flaky)
    said = []
    with pytest.raises(Interrupted):
        run_experiment("seed000_fig1c", horizon=2000, reps=5, out=tmp_path / "x", progress=False,
                       log=said.append)
    assert any(m.startswith("interrupted: 2 of the ") and "cells this command had to compute finished" in m
               and "2 finished repetitions are stored too" in m
               and m.endswith("rerun the same command to resume (it computes only what is missing)")
               for m in said), said
    monkeypatch.setattr(runner, "run_plan", run_plan)
    messages = []
    resumed = run_experiment("seed000_fig1c", horizon=2000, reps=5, out=tmp_path / "x", progress=False,
                             log=messages.append)
    assert sum("reusing" in m for m in messages) == 2
    assert sum("resuming after 2" in m for m in messages) == 1
    for key in clean.results:
        assert np.array_equal(clean.results[key].regret, resumed.results[key].regret)
    assert (tmp_path / "x" / "seed000_fig1c" / "final_regret_vs_eps.png").stat().st_size > 0


def test_a_table_cell_reads_mean_and_standard_error_alike():
    """The quick start's table: the standard error to two significant digits, the mean to the same
    place, fixed notation (no 2.026e+04 beside 9996); the column header says what ± is."""
    from dpbench.experiments.outputs import mean_se_text
    assert mean_se_text(951.6, 24.8) == "952 ± 25"
    assert mean_se_text(1832.4, 8.14) == "1,832.4 ± 8.1"
    assert mean_se_text(20260.0, 150.0) == "20,260 ± 150"
    assert mean_se_text(0.01234, 0.00056) == "0.01234 ± 0.00056"
    assert mean_se_text(20260.3, float("nan")) == "20,260"


def test_a_bad_horizon_in_an_experiment_file_names_the_file(tmp_path):
    from dpbench.experiments.runner import load_experiment
    from dpbench.validation import InputError

    path = tmp_path / "mine.toml"
    path.write_text('horizon = -5\nreps = 2\nseed = 0\nenvironment = { name = "bernoulli", means = [0.5, 0.4] }\n'
                    'runs = [{ label = "UCB1", policy = "ucb1" }]\n')
    with pytest.raises(InputError, match=r"experiment file .*mine\.toml: horizon must be"):
        load_experiment(path)


def test_force_recomputes_one_experiments_cells_and_keeps_the_rest_of_a_shared_store(tmp_path):
    """`dpbench report X --force` discards the cells of X's configurations only (a shared store
    holds every report's), computes a configuration two of its experiments share once, and
    replaces a run whose definition changed instead of refusing it."""
    from dpbench.experiments.runner import experiment_from_raw

    def exp(name, means, label="UCB1"):
        return experiment_from_raw({"name": name, "horizon": 200, "reps": 2, "seed": 0,
                                    "environment": {"name": "bernoulli", "means": means},
                                    "runs": [{"label": label, "policy": "ucb1"}]})

    store, quiet = tmp_path / "shared.sqlite", (lambda m: None)
    kw = dict(out=tmp_path, store=store, outputs=False, progress=False, log=quiet)
    run_experiment(exp("mine", [0.5, 0.4]), **kw)
    run_experiment(exp("theirs", [0.9, 0.1]), **kw)
    fresh = set()
    assert run_experiment(exp("mine", [0.5, 0.4]), fresh=fresh, **kw).cells["computed"] == 1
    assert run_experiment(exp("mine_again", [0.5, 0.4]), fresh=fresh, **kw).cells["computed"] == 0  # once
    assert run_experiment(exp("theirs", [0.9, 0.1]), **kw).cells["computed"] == 0                  # kept
    with pytest.raises(Exception, match="different configuration"):
        run_experiment(exp("theirs", [0.8, 0.1]), **kw)
    changed = run_experiment(exp("theirs", [0.8, 0.1]), fresh=set(), **kw)
    assert changed.cells["computed"] == 1


#: a small experiment file: one UCB1 run on two Bernoulli arms (tests add or change one key)
SMALL = ('horizon = 100\nreps = 2\nseed = 0\nenvironment = { name = "bernoulli", means = [0.5, 0.4] }\n'
         'runs = [{ label = "UCB1", policy = "ucb1" }]\n')


def _refused(tmp_path, text: str, match: str) -> None:
    from dpbench.validation import InputError
    path = tmp_path / "mine.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        load_experiment(path)


def test_a_misspelt_key_or_yscale_in_an_experiment_file_is_named(tmp_path):
    _refused(tmp_path, SMALL + 'yscal = "log"\n',
             r"unknown key 'yscal' for experiment file .*mine\.toml; did you mean yscale")
    _refused(tmp_path, SMALL + 'yscale = "lgo"\n', r"unknown yscale 'lgo' .*did you mean log")
    _refused(tmp_path, SMALL.replace("reps", "repz"), r"unknown key 'repz' .*did you mean reps")


def test_a_baseline_that_names_no_run_and_a_shared_label_are_named(tmp_path):
    """A baseline matching no run used to drop the ratio column silently; a shared label was
    'two runs share a (panel, label)' without the label."""
    from dpbench.experiments import grid_experiment
    from dpbench.validation import InputError

    with pytest.raises(InputError, match=r"^unknown baseline 'UCB' for sweep 'x'; did you mean UCB1\? allowed run "
                                         r"labels: LDP-UCB-B \(eps=1\), UCB1$"):
        grid_experiment("x", ["ucb1", "ldp_ucb_b"], instances=[{"means": [0.9, 0.8]}], grid={"eps": [1.0]},
                        horizon=100, reps=2, baseline="UCB")
    two = SMALL.replace(' }]', ' }, { label = "B", policy = "ldp_ucb_b", eps = 1.0 }]')
    _refused(tmp_path, two + 'baseline = "UU"\n', r"unknown baseline 'UU' for experiment file .*mine\.toml")
    _refused(tmp_path, two.replace('label = "B"', 'label = "UCB1"'),
             r"mine\.toml: two runs share the label 'UCB1'; give each its own label")


def test_an_interval_from_fewer_than_ten_repetitions_is_marked(tmp_path, monkeypatch):
    """Thin evidence: the warning of the table and of the figure's caption names the counts
    under 10 (a single repetition has no interval, so no warning)."""
    from dpbench.experiments import outputs
    assert outputs.thin_warning([2, 50]).startswith("⚠ intervals from fewer than 10 repetitions (2)")
    assert outputs.thin_warning([10, 100]) == "" and outputs.thin_warning([]) == ""
    titles = []
    monkeypatch.setattr(outputs, "_save_figure", lambda plt, fig, title, path: titles.append(title) or path)
    run_experiment("seed000_fig1c", horizon=1000, reps=4, out=tmp_path, progress=False, log=lambda m: None)
    assert len(titles) == 2 and all(t.endswith("(4): too few to compare runs by; rerun with --reps 10 or more")
                                    for t in titles)
