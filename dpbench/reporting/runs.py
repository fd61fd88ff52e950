"""Results of an experiment run: by label, by checkpoint and by swept parameter."""
from __future__ import annotations

from ..experiments.runner import run_key


def run_results(run, label: str):
    """The SimulationResult of run ``label`` ('panel / label' or 'label') of an ExperimentRun."""
    if run is None:
        return None
    if label in run.results:
        return run.results[label]
    hits = [k for k in run.results if k.endswith(" / " + label) or k == label]
    return run.results[hits[0]] if len(hits) == 1 else None


def has_checkpoint(result, t: int) -> bool:
    return result is not None and int(t) in set(int(c) for c in result.checkpoints)


def horizons_of(result, wanted=(10 ** 5, 10 ** 6, 10 ** 7)) -> list[int]:
    hs = [t for t in wanted if has_checkpoint(result, t)]
    last = int(result.checkpoints[-1])
    return hs if last in hs else hs + [last]


def panel_sweep(run, panel: str, policy: str, variable: str) -> dict:
    """{value of ``variable``: result} for the runs of ``policy`` in ``panel`` of an ExperimentRun."""
    out = {}
    if run is None:
        return out
    for spec in run.runs:
        if spec.panel == panel and spec.policy == policy and variable in spec.params:
            res = run.results.get(run_key(spec))
            if res is not None:
                out[float(spec.params[variable])] = res
    return out


