"""The README's speed section is generated from the benchmark JSON: the 2-thread verdict uses the
median of the per-round ratios, and the memory figures of test_bench_memory.py are rendered."""
from tests.benchmarks import speed_table as st


def _data(rounds):
    return {"datetime": "2026-11-25T00:00:00", "machine_info": {"node": "vm", "cpu": {"count": 2}},
            "commit_info": {"id": "abc"}, "benchmarks": [
                {"name": "test_two_thread_scaling[ucb1]", "param": "ucb1", "group": "g",
                 "extra_info": {"ratio": 1.5, "ratio_cpu": 1.0, "ratio_median": sorted(rounds)[len(rounds) // 2],
                                "target": 1.9, "pulls_per_second": 1e8, "anchor_pulls_per_second": 5e7,
                                "round_ratios": rounds}},
                {"name": "test_peak_memory[runner]", "param": "runner", "group": "memory",
                 "extra_info": {"mode": "runner", "horizon": 10 ** 7, "reps": 100, "checkpoints": 130,
                                "extra_mb": 38.2, "tiny_extra_mb": 36.1, "base_mb": 200.0, "seconds": 31.0}}]}


def test_two_thread_verdict_is_the_median_round_and_memory_is_generated(tmp_path):
    text = st.section(_data([1.95, 0.6, 1.97, 1.99, 1.96]))       # one disturbed round
    assert "| ucb1 | **1.50x (median 1.96x)** |" in text and "met (1.9x)" in text
    assert "| the runner with the SQLite result store | 1e+07 | 100 | 130 | 38.20 | 36.10 | 31 |" in text
    assert "missed" in st.section(_data([1.5, 1.6, 1.7]))
    readme = tmp_path / "README.md"
    readme.write_text(f"a\n{st.BEGIN}\ntyped\n{st.END}\nb\n")
    st.rewrite(readme, text)
    body = readme.read_text()
    assert "typed" not in body and "**Memory.**" in body and body.startswith("a\n") and body.endswith("b\n")
