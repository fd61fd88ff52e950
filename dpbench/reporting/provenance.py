"""Provenance of a report: versions, git commit, the command that rebuilds it, and the build
times (``timings.json``, ``timings.md`` and the reports guide's block)."""
from __future__ import annotations

import time
from pathlib import Path

from .context import ReportContext, shown_command
from .markdown import Report


def command_line(ctx: ReportContext) -> str:
    """The command that rebuilds this report (non-default options included)."""
    return ctx.command()


def provenance_section(report: Report):
    """Package versions, git commit, result store, cells computed or reused, and the command."""
    from ..engine.result import code_and_versions, now_iso, package_versions
    ctx = report.ctx
    report.section("Provenance")
    report.bullets([
        f"{code_and_versions()} on {package_versions()['platform']}",
        f"built {now_iso()} by `{command_line(ctx)}`; result store `{ctx.shown_store}` "
        f"({ctx.cells['computed']} cells computed, {ctx.cells['stored']} reused)",
        "seeds, horizons and repetitions: the setup table (per experiment) and the claims table (per row)",
    ])


TIMINGS = "timings.json"


def record_timing(ctx: ReportContext, wall: float, cpu: float) -> Path:
    """Add this build's wall and CPU seconds to ``<out>/timings.json`` and rewrite
    ``<out>/timings.md`` (the per-report time table the reports guide points to)."""
    import json
    import os

    from ..engine.result import now_iso
    path = Path(ctx.out_dir) / TIMINGS
    data = json.loads(path.read_text()) if path.exists() else {}
    name = f"{ctx.paper}{' --quick' if ctx.quick else ''}"
    for older in data.values():                     # recorded before reports hid the build's folders
        older["command"] = shown_command(older["command"])
    entry = data.get(name, {})
    this = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "cells_computed": ctx.cells["computed"],
            "cells_reused": ctx.cells["stored"], "cores": os.cpu_count(), "date": now_iso(),
            "command": command_line(ctx)}
    if ctx.cells["computed"] or not entry:
        entry = this        # the latest build that computed cells (cells reused 0: from an empty store)
    else:
        entry["rebuild_s"] = this["wall_s"]          # every cell reused: the time to rebuild it
    # an older figure is never kept beside a newer build's: it may be of other code or other sizes
    data[name] = entry
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    write_timing_tables(ctx.out_dir, readme=not ctx.quick and ctx.paper_dir is None)
    return path


def write_timing_tables(out_dir, *, readme: bool = True) -> None:
    """Render ``<out>/timings.json`` as ``<out>/timings.md`` and, if ``readme``, into the timing
    block (README_TIMINGS markers) of the reports guide of the checkout above ``out``
    (``dpbench/guides/reports.md``; a folder without it is left alone)."""
    import json
    data = json.loads((Path(out_dir) / TIMINGS).read_text())
    lines = ["# Report build times", "",
             "Written by `dpbench report` after each build: wall and CPU seconds of the last build that "
             "computed cells (from an empty result store: every cell), the cells it computed and reused, and "
             "the wall seconds of the last rebuild from stored cells. CPU time counts every thread of the "
             "process; on a shared machine wall time is inflated by other load.", ""]
    (Path(out_dir) / "timings.md").write_text("\n".join(lines + timing_table(data)) + "\n")
    path = Path(out_dir).resolve().parent / "dpbench" / "guides" / "reports.md"
    if readme and path.exists():
        _replace_block(path, timing_table({k: e for k, e in data.items() if "--quick" not in k}))


#: the reports guide's block :func:`record_timing` keeps equal to the timing table (full-size builds only)
README_TIMINGS = ("<!-- report timings: written by dpbench report -->", "<!-- end of report timings -->")


def timing_table(data: dict) -> list[str]:
    """Markdown rows of the per-report build times in ``timings.json`` (and their total)."""
    rows = ["| report | wall (s) | CPU (s) | cells computed | cells reused | rebuild from store (s) | cores | "
            "date | command |",
            "|---|---|---|---|---|---|---|---|---|"]
    for key, e in sorted(data.items()):
        rows.append(f"| {key} | {e['wall_s']:.0f} | {e['cpu_s']:.0f} | {e['cells_computed']} | "
                    f"{e['cells_reused']} | {e.get('rebuild_s', '')} | {e['cores']} | {e['date']} | "
                    f"`{e['command']}` |")
    full = [e for key, e in data.items() if "--quick" not in key]
    if len(full) > 1 and all(e["cells_computed"] for e in full):   # a rebuild's seconds are no build's cost
        rows.append(f"| total (full size) | {sum(e['wall_s'] for e in full):.0f} | "
                    f"{sum(e['cpu_s'] for e in full):.0f} | "
                    f"{sum(e['cells_computed'] for e in full)} | | | | | |")
    return rows


def _replace_block(path: Path, rows: list[str]) -> None:
    """Replace the lines between the README_TIMINGS markers of ``path`` (the reports guide; if it has
    them) by ``rows``."""
    text = path.read_text()
    start, end = README_TIMINGS
    if start not in text or end not in text:
        return
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(head + start + "\n" + "\n".join(rows) + "\n" + end + tail)


def finish(report: Report) -> Path:
    ctx = report.ctx
    if ctx.missing:
        report.section("Not yet available")
        report.text("These experiments or checks are not in this installation yet; their sections are "
                    "empty and will fill in when they land: " + ", ".join(sorted(set(ctx.missing))) + ".")
    provenance_section(report)
    wall, cpu = time.perf_counter() - ctx.started, time.process_time() - ctx.cpu_started
    report.text(f"_Built in {wall:.0f} s wall, {cpu:.0f} s CPU by `{command_line(ctx)}`._")
    path = report.write()
    record_timing(ctx, wall, cpu)
    return path
