"""The known-answer suite's runner (``sniper.run_cases``): rows in worker processes, one per core,
give exactly the rows of the in-process audit, in the suite's order."""
import multiprocessing
import os

from verify.audit.suites import sniper


def _child_threads(queue):
    queue.put({k: os.environ.get(k) for k in sniper._THREAD_VARIABLES})


def test_rows_in_worker_processes_are_the_in_process_rows_in_the_suite_order():
    chosen = [c for c in sniper.cases() if c.name in ("LaplaceMechanism", "ReportNoisyMax1", "Rappor")]
    seen = []
    rows = sniper.run_cases(chosen, n=20_000, seed=4, workers=2, on_row=lambda case, *_: seen.append(case.name))
    assert [case.name for case, *_ in rows] == [c.name for c in chosen]      # the order given, not finishing order
    assert sorted(seen) == sorted(c.name for c in chosen)
    for case, res, wall, cpu in rows:
        alone, _, _ = sniper.run_case(case, n=20_000, seed=4)
        assert res.eps_lower_bound == alone.eps_lower_bound, case.name
        for key in ("event", "count_x", "count_x_prime", "n_x", "n_x_prime"):
            assert res.witness[key] == alone.witness[key], (case.name, key)
        assert str(res.witness["x"]) == str(alone.witness["x"]) and res.n_samples == alone.n_samples, case.name
        assert wall > 0 and cpu > 0


def test_children_started_in_the_block_get_the_thread_count_and_the_parent_keeps_its_own():
    before = {k: os.environ.get(k) for k in sniper._THREAD_VARIABLES}
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    with sniper._threads_for_children(1):
        child = ctx.Process(target=_child_threads, args=(queue,))
        child.start()
    seen = queue.get(timeout=120)
    child.join()
    assert seen == {k: "1" for k in sniper._THREAD_VARIABLES}
    assert {k: os.environ.get(k) for k in sniper._THREAD_VARIABLES} == before


def test_the_suite_counts_the_workers_cpu_once_and_every_part_from_zero(monkeypatch, tmp_path):
    """The rows' CPU is spent in worker processes: the suite's CPU counts it (and only once), and
    the controls' and planted bugs' CPU after it stay their own."""
    from verify.audit.suites import planted, report
    chosen = [c for c in sniper.cases() if c.name in ("LaplaceMechanism", "TruncatedGeometricMechanism")]
    bug = next(c for c in planted.planted_bugs() if c.name == "laplace_half_scale")
    rows = []
    monkeypatch.setattr(report, "cases", lambda: chosen)
    monkeypatch.setattr(report, "run_cases", lambda *a, **k: rows.extend(sniper.run_cases(*a, **k)) or rows)
    monkeypatch.setattr(report, "planted_bugs", lambda: [bug])
    monkeypatch.setattr(report, "audit_catalog", lambda seed: [])
    real = report.audit_planted
    monkeypatch.setattr(report, "audit_planted", lambda seed: real(n=20_000, seed=seed))
    seconds = report.write_suite(tmp_path / "suite.md", scale=1e-3)
    rows_cpu = sum(cpu for *_, cpu in rows)
    assert len(rows) == 2 and all(s >= 0 for s in seconds), seconds
    assert rows_cpu <= seconds[1] < 2 * rows_cpu + 30, (seconds, rows_cpu)
    assert f"{seconds[1]:.0f} s CPU time (all threads of all rows)" in (tmp_path / "suite.md").read_text()
