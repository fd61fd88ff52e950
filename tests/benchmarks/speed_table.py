"""Rewrite the speed section of the testing guide (dpbench/guides/testing.md) from a pytest-benchmark
JSON file (issue 17).

Ratios first: dpbench against the plain C loop, against an earlier dpbench and 2 threads
against 1, each measured side by side in the same run (``test_bench_c_ratio.py``), with the
issue's target and whether it is met; then every other benchmark's absolute rate as
context; the date, machine and commit of the run from the JSON.  The text between the
README's ``<!-- speed:begin -->`` and ``<!-- speed:end -->`` markers is replaced::

    python -m pytest -m benchmark --benchmark-only tests/benchmarks/ --benchmark-json=bench.json
    python -m tests.benchmarks.speed_table bench.json [--note "machine busy"] [--readme README.md]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "dpbench" / "guides" / "testing.md"
BEGIN, END = "<!-- speed:begin -->", "<!-- speed:end -->"
RATES = (("pulls_per_second", "pulls/s"), ("samples_per_second", "samples/s"),
         ("draws_per_second", "draws/s"), ("histories_per_second", "histories/s"))
RATIO_TESTS = {   # test function -> (title, what the ratio is)
    "test_ratio_to_c_loop": ("dpbench / the plain C loop `tests/benchmarks/ucb_ref.c`, 20 arms, "
                             "T = 1e6, 1 thread", "C"),
    "test_speedup_over_baseline_revision": ("dpbench / an earlier dpbench (`DPBENCH_BASELINE_REV`), "
                                            "1 thread", "earlier"),
    "test_two_thread_scaling": ("2 threads / 1 thread, 20 arms, T = 1e7 (verdict: the median of the "
                                "per-round ratios)", "1 thread"),
}


def _g(x):
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _verdict(ratio, target):
    if target is None:
        return "no target"
    if ratio >= target:
        return f"met ({target:g}x)"
    return f"missed ({target:g}x): {100 * (1 - ratio / target):.0f}% short"


def _param(bench):
    return bench.get("param") or bench["name"]


def ratio_tables(benchmarks):
    lines = []
    for test, (title, anchor) in RATIO_TESTS.items():
        rows = [b for b in benchmarks if b["name"].split("[")[0] == test]
        if not rows:
            continue
        info0 = rows[0]["extra_info"]
        lines += [f"**{title}**" + (f" (against {info0['anchor']})" if test.startswith("test_speedup") else ""),
                  "",
                  f"| case | ratio (wall) | ratio (CPU) | target | dpbench pulls/s | {anchor} pulls/s | per round |",
                  "|---|---|---|---|---|---|---|"]
        for b in rows:
            i = b["extra_info"]
            by_wall = test == "test_two_thread_scaling"
            wall, cpu = f"{i['ratio']:.2f}x", f"{i['ratio_cpu']:.2f}x"
            if by_wall and "ratio_median" in i:
                wall = f"{wall} (median {i['ratio_median']:.2f}x)"
            wall, cpu = (f"**{wall}**", cpu) if by_wall else (wall, f"**{cpu}**")
            decisive = i.get("ratio_median", i["ratio"]) if by_wall else i["ratio_cpu"]
            verdict = _verdict(decisive, i.get("target"))
            if "identical_regrets" in i:
                verdict += "; regrets " + ("identical" if i["identical_regrets"] else "DIFFER")
            lines.append(f"| {_param(b)} | {wall} | {cpu} | {verdict} | {_g(i['pulls_per_second'])} | "
                         f"{_g(i['anchor_pulls_per_second'])} | {', '.join(f'{r:.2f}' for r in i['round_ratios'])} |")
        lines.append("")
    return lines


def rate_table(benchmarks):
    rows = []
    for b in benchmarks:
        if b["name"].split("[")[0] in RATIO_TESTS:
            continue
        for key, unit in RATES:
            if key in b["extra_info"]:
                threads = b["extra_info"].get("threads")
                rows.append(f"| {b['group'] or ''} | {b['name']} | {_g(b['extra_info'][key])} {unit}"
                            f"{f' ({threads} threads)' if threads and threads > 1 else ''} |")
                break
    if not rows:
        return []
    return ["Absolute rates of the other benchmarks of the same run (context; mean round time):", "",
            "| group | benchmark | rate |", "|---|---|---|", *rows, ""]


def memory_table(benchmarks):
    """Peak resident memory of the long runs of ``test_bench_memory.py`` (above the warmed-up
    interpreter), against the same measurement of a tiny run."""
    rows = [b for b in benchmarks if b["name"].split("[")[0] == "test_peak_memory"]
    if not rows:
        return []
    lines = ["**Memory.** Peak resident memory above the warmed-up interpreter, each in a fresh process "
             "(`test_bench_memory.py`): memory is O(R x checkpoints), never O(T).", "",
             "| what | T | R | checkpoints | peak extra (MB) | same at T = 1e3, R = 1 (MB) | seconds |",
             "|---|---|---|---|---|---|---|"]
    what = {"simulate": "`dpbench.simulate`", "runner": "the runner with the SQLite result store"}
    for b in rows:
        i = b["extra_info"]
        lines.append(f"| {what.get(i['mode'], i['mode'])} | {i['horizon']:.0e} | {i['reps']} | {i['checkpoints']} | "
                     f"{i['extra_mb']:.2f} | {i['tiny_extra_mb']:.2f} | {i['seconds']:.0f} |")
    return lines + [""]


def section(data, note=None, source="bench.json"):
    machine = data.get("machine_info", {})
    cpu = machine.get("cpu", {})
    commit = data.get("commit_info", {})
    head = [f"Generated by `python -m tests.benchmarks.speed_table {source}` from "
            f"`python -m pytest -m benchmark --benchmark-only ... --benchmark-json={source}`, run "
            f"{data.get('datetime', '?')[:19]} UTC on {machine.get('node', '?')} "
            f"({cpu.get('brand_raw', machine.get('processor', '?'))}, {cpu.get('count', '?')} cores, "
            f"Python {machine.get('python_version', '?')}), commit {commit.get('id', '?')[:9]}"
            f"{' (uncommitted changes)' if commit.get('dirty') else ''}.  Ratios are of pulls per second "
            f"measured side by side in the same run (each dpbench round after one anchor run, "
            f"\"per round\": wall-clock ratio of each pair); the verdict uses the ratio in bold: CPU time "
            f"(steadier on a busy machine), wall clock for the 2-thread scaling.", ""]
    if note:
        head += [f"**Note:** {note}", ""]
    benchmarks = data["benchmarks"]
    tables = ratio_tables(benchmarks) + rate_table(benchmarks) + memory_table(benchmarks)
    return "\n".join(head + tables).rstrip() + "\n"


def rewrite(readme: Path, text: str) -> None:
    body = readme.read_text()
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), flags=re.S)
    if not pattern.search(body):
        raise SystemExit(f"{readme}: no {BEGIN} ... {END} markers")
    readme.write_text(pattern.sub(lambda _: f"{BEGIN}\n{text}{END}", body))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", type=Path, help="output of pytest --benchmark-json")
    ap.add_argument("--readme", type=Path, default=README)
    ap.add_argument("--note", help="a sentence printed above the tables (e.g. that the machine was busy)")
    args = ap.parse_args(argv)
    rewrite(args.readme, section(json.loads(args.json.read_text()), args.note, args.json.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
