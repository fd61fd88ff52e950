"""The DP libraries people use, audited from their own objects: reports/audit_libraries.md.

Each case builds one mechanism object of a library (OpenDP, diffprivlib, python-dp, PipelineDP,
Tumult Core) as a user would, and audits it with the default audit at the object's own claim
(:mod:`verify.audit.libraries`): one configuration for every row (``SUITE_N`` certification
outputs per input, ``SUITE_ALPHA``, seed 0).  ``expected`` is what the case must show per
layer, known before the run: a law that holds its claim, a float sampler the floating-point layer
catches, a wrong claim (an understated sensitivity, a privacy map that halves eps) the law catches.

A library that cannot be imported is a *skipped* row with its install line.  Older releases that
cannot share the running environment are audited in their own (``python -m
verify.audit.suites.library_envs``): each writes its rows, with the environment, the command and
the code stamp, to ``reports/audit_libraries/<env>.json``, and the report merges the recorded rows
of every library version not importable here.
"""
from __future__ import annotations

import datetime
import json
import math
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpbench.validation import InputError

from .. import libraries
from ..engine import audit
from ..layers import FLOATING_POINT, LAW

#: certification outputs per input of every row: one call of the library per output, and OpenDP or
#: Tumult take 0.1 - 1 ms a call, so a row draws about 9e4 outputs (2 inputs, every stage)
SUITE_N = 20_000
SUITE_ALPHA = 1e-3
#: where the rows recorded in other environments are kept
RECORDED = Path("reports/audit_libraries")


@dataclass(frozen=True)
class LibraryCase:
    """One mechanism object of a library, the pair it is audited on, and what the audit must show.

    ``build()`` imports the library and returns the object (ImportError: the library is absent);
    ``expect``: per layer "holds", "violated", "either" (the case says nothing about that layer)
    or "not tested", or a function of the library's version giving them; ``why``: what the case is.
    """

    library: str
    name: str
    build: object
    x: object
    x_prime: object
    expect: dict
    why: str


def _expect(law: str = "holds", fp: str = "holds") -> dict:
    return {LAW: law, FLOATING_POINT: fp}


def _version(text: str) -> tuple:
    """(major, minor) of a version string ("0.16.0" -> (0, 16))."""
    try:
        return tuple(int(p) for p in text.split(".")[:2])
    except ValueError:
        return (0, 0)


def _opendp_float(version: str) -> dict:
    """OpenDP before 0.8 (0.4 and 0.5 here) puts its float Laplace and Gaussian behind
    enable_features("floating-point"), its flag for samplers it does not promise to be float-safe: no
    expectation for the floating point there."""
    return _expect(fp="either") if _version(version) < (0, 8) else _expect()


# ------------------------------------------------------------------ OpenDP (0.4 - 0.16)
def _opendp():
    """(new API or None, old modules or None): OpenDP 0.8+ ``opendp.prelude`` or 0.4 - 0.7's meas/trans."""
    try:
        import opendp.prelude as dp
        dp.enable_features("contrib")
        return dp, None
    except ImportError:
        from opendp import meas, trans
        from opendp.mod import enable_features
        enable_features("contrib", "floating-point")
        return None, (meas, trans)


def opendp_laplace_float():
    dp, old = _opendp()
    if dp is not None:
        return dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    return libraries.wrap(old[0].make_base_laplace(scale=1.0), measure="MaxDivergence")


def _old_discrete_laplace(meas):
    """0.5 - 0.7: make_base_discrete_laplace; 0.4: make_base_geometric (the same two-sided geometric law)."""
    make = getattr(meas, "make_base_discrete_laplace", None) or meas.make_base_geometric
    return make(scale=1.0)


def opendp_laplace_int():
    dp, old = _opendp()
    if dp is not None:
        return dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
    return libraries.wrap(_old_discrete_laplace(old[0]), measure="MaxDivergence")


def opendp_gaussian_float():
    dp, old = _opendp()
    if dp is not None:
        return dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
    if not hasattr(old[0], "make_base_analytic_gaussian"):        # 0.5 - 0.7: zCDP
        return libraries.wrap(old[0].make_base_gaussian(scale=1.0, MO="ZeroConcentratedDivergence<f64>"),
                              measure="ZeroConcentratedDivergence")
    return old[0].make_base_analytic_gaussian(scale=1.0)         # 0.4: (eps, delta) by its privacy relation


def opendp_randomized_response():
    dp, old = _opendp()
    make = dp.m.make_randomized_response if dp is not None else old[0].make_randomized_response
    m = make(categories=["a", "b", "c"], prob=0.5)
    return m if dp is not None else libraries.wrap(m, measure="MaxDivergence")


def opendp_randomized_response_bool():
    dp, old = _opendp()
    make = dp.m.make_randomized_response_bool if dp is not None else old[0].make_randomized_response_bool
    m = make(prob=0.75)
    return m if dp is not None else libraries.wrap(m, measure="MaxDivergence")


def opendp_count_laplace():
    dp, old = _opendp()
    if dp is not None:
        return (dp.t.make_count(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())
                >> dp.m.then_laplace(scale=1.0))
    meas, trans = old                   # before 0.6 the input metric is not exposed: the pair is 1 record apart
    return libraries.wrap(trans.make_count(TIA=int) >> _old_discrete_laplace(meas), d_in=1, measure="MaxDivergence")


def opendp_laplace_vector():
    dp, _ = _opendp()
    if dp is None:
        raise ImportError("the vector case is written for OpenDP 0.8 and later")
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.0)


def opendp_user_halved():
    """A user measurement whose privacy map claims half its true eps (numpy Laplace, scale 1)."""
    dp, _ = _opendp()
    if dp is None:
        raise ImportError("user measurements are written for OpenDP 0.8 and later")
    dp.enable_features("honest-but-curious")
    rng = np.random.default_rng()
    return dp.m.make_user_measurement(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float),
                                      dp.max_divergence(), lambda x: float(x + rng.laplace(0.0, 1.0)),
                                      lambda d_in: d_in / 2)


# ------------------------------------------------------------------ diffprivlib
def _dpl():
    import diffprivlib.mechanisms as mech
    return mech


def _pydp():
    from pydp.algorithms import numerical_mechanisms as nm
    return nm


def _pipeline():
    from pipeline_dp import dp_computations
    return dp_computations


def _tumult():
    from tmlt.core.domains.numpy_domains import NumpyFloatDomain
    from tmlt.core.measurements import noise_mechanisms
    return noise_mechanisms, NumpyFloatDomain


def cases() -> list[LibraryCase]:
    """Every case, by library."""
    c = LibraryCase
    return [
        c("opendp", "Laplace on floats", opendp_laplace_float, 0.0, 1.0, _opendp_float,
          "make_laplace(atom_domain(T=float), absolute_distance(T=float), scale=1) (0.4 - 0.7: make_base_laplace, "
          "behind the 'floating-point' feature: not promised float-safe by the library)"),
        c("opendp", "Laplace on integers", opendp_laplace_int, 0, 1, _expect(fp="not tested"),
          "make_laplace on integers: the discrete Laplace (0.4 - 0.7: make_base_discrete_laplace)"),
        c("opendp", "Gaussian on floats", opendp_gaussian_float, 0.0, 1.0, _opendp_float,
          "make_gaussian(scale=1): rho = 0.5 at d_in = 1, read at delta = 1e-5 (0.5: make_base_gaussian, zCDP; "
          "0.4: make_base_analytic_gaussian, (eps, delta) by its relation; both behind the 'floating-point' feature)"),
        c("opendp", "randomized response, 3 categories", opendp_randomized_response, "a", "b",
          _expect(fp="not tested"), "make_randomized_response(categories=[a, b, c], prob=0.5): labels"),
        c("opendp", "randomized response, bool", opendp_randomized_response_bool, True, False,
          _expect(fp="not tested"), "make_randomized_response_bool(prob=0.75)"),
        c("opendp", "count >> Laplace, add/remove one", opendp_count_laplace, [1, 2, 3], [1, 2, 3, 4],
          _expect(fp="not tested"), "make_count >> then_laplace(scale=1) on datasets of 3 and 4 records"),
        c("opendp", "Laplace on vectors (L1)", opendp_laplace_vector, [0.0, 0.0], [1.0, 0.0], _expect(),
          "make_laplace(vector_domain, l1_distance, scale=1): 2-d outputs"),
        c("opendp", "user measurement, map halves eps", opendp_user_halved, 0.0, 1.0,
          _expect(law="violated", fp="either"),
          "wrong claim: make_user_measurement with numpy Laplace(1) noise whose privacy map says d_in / 2"),
        c("diffprivlib", "Laplace", lambda: _dpl().Laplace(epsilon=1, sensitivity=1), 0.0, 1.0,
          _expect(fp="violated"), "Laplace(epsilon=1, sensitivity=1): Laplace noise added in floating point"),
        c("diffprivlib", "Laplace, sensitivity understated", lambda: _dpl().Laplace(epsilon=1, sensitivity=0.5),
          0.0, 1.0, _expect(law="violated", fp="either"),
          "wrong claim: Laplace(epsilon=1, sensitivity=0.5) on inputs 1 apart (a query of sensitivity 1)"),
        c("diffprivlib", "Snapping", lambda: _dpl().Snapping(epsilon=1, sensitivity=1, lower=-100, upper=100),
          0.0, 1.0, _expect(fp="not tested"), "Snapping(epsilon=1, sensitivity=1, bounds +-100): Mironov's "
                                              "float-safe snapping mechanism (outputs on a lattice of 2)"),
        c("diffprivlib", "GaussianAnalytic", lambda: _dpl().GaussianAnalytic(epsilon=1, delta=1e-5, sensitivity=1),
          0.0, 1.0, _expect(fp="violated"), "GaussianAnalytic(epsilon=1, delta=1e-5, sensitivity=1): float noise"),
        c("diffprivlib", "Geometric", lambda: _dpl().Geometric(epsilon=1, sensitivity=1), 0, 1,
          _expect(fp="not tested"), "Geometric(epsilon=1, sensitivity=1): integer outputs"),
        c("diffprivlib", "Binary", lambda: _dpl().Binary(epsilon=1, value0="0", value1="1"), "0", "1",
          _expect(fp="not tested"), "Binary(epsilon=1): randomised response on two labels"),
        c("python-dp", "LaplaceMechanism", lambda: _pydp().LaplaceMechanism(1.0, 1.0), 0.0, 1.0, _expect(),
          "LaplaceMechanism(epsilon=1, sensitivity=1): noise on a power-of-two granularity"),
        c("python-dp", "GaussianMechanism", lambda: _pydp().GaussianMechanism(1.0, 1e-5, 1.0), 0.0, 1.0,
          _expect(fp="violated"), "GaussianMechanism(epsilon=1, delta=1e-5, l2_sensitivity=1): a float Gaussian "
                                  "sample, not on the granularity the input is rounded to"),
        c("pipeline-dp", "LaplaceMechanism", lambda: _pipeline().LaplaceMechanism.create_from_epsilon(1.0, 1.0),
          0.0, 1.0, _expect(), "dp_computations.LaplaceMechanism.create_from_epsilon(1, l1_sensitivity=1)"),
        c("pipeline-dp", "GaussianMechanism",
          lambda: _pipeline().GaussianMechanism.create_from_epsilon_delta(1.0, 1e-5, 1.0), 0.0, 1.0,
          _expect(fp="violated"), "dp_computations.GaussianMechanism.create_from_epsilon_delta(1, 1e-5, 1): "
                                "python-dp's Gaussian inside"),
        c("tmlt.core", "AddLaplaceNoise", lambda: _tumult()[0].AddLaplaceNoise(input_domain=_tumult()[1](), scale=1),
          0.0, 1.0, _expect(), "AddLaplaceNoise(NumpyFloatDomain, scale=1): correctly rounded inverse-CDF sampling"),
        c("tmlt.core", "AddGeometricNoise", lambda: _tumult()[0].AddGeometricNoise(alpha=1), 0, 1,
          _expect(fp="not tested"), "AddGeometricNoise(alpha=1): two-sided geometric"),
        c("tmlt.core", "AddDiscreteGaussianNoise", lambda: _tumult()[0].AddDiscreteGaussianNoise(sigma_squared=1), 0, 1,
          _expect(fp="not tested"), "AddDiscreteGaussianNoise(sigma_squared=1): rho = 0.5, read at delta = 1e-5"),
    ]


# ------------------------------------------------------------------ running
def _layer(layer) -> dict:
    """A layer's outcome, JSON-ready; an untested layer keeps its None (no verdict, no bound, no p-value)."""
    def num(v):
        return None if v is None else float(v)
    return {"status": layer.status, "violated": None if layer.violated is None else bool(layer.violated),
            "eps_lower_bound": num(layer.eps_lower_bound), "unbounded": bool(layer.unbounded),
            "p_value": num(layer.p_value)}


def _jsonable(v):
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v if isinstance(v, (int, float, str, bool, list, type(None))) else repr(v)


def matches(expect: str, layer: dict) -> bool:
    """Whether a layer's outcome is the expected one ("either" matches anything tested)."""
    if expect == "not tested":
        return layer["status"] == "not tested"
    if expect == "either":
        return True
    return layer["status"] != "not tested" and layer["violated"] == (expect == "violated")


def expected(case: LibraryCase, version: str) -> dict:
    """What the case must show per layer, for this version of its library."""
    return case.expect(version) if callable(case.expect) else case.expect


def judge(row: dict) -> dict:
    """The row with its expectation and ``as_expected`` computed from the case (by name) and its version."""
    stem = row["case"].split(" (")[0]          # a row recorded before a case's name gained a parenthesis
    case = next((c for c in cases() if c.library == row["library"] and c.name.split(" (")[0] == stem), None)
    if case is None or "refused" in row:
        return row
    expect = expected(case, row["version"])
    return {**row, "expect": expect, "as_expected": all(matches(expect[k], row[k]) for k in (LAW, FLOATING_POINT))}


def run_case(case: LibraryCase, n: int = SUITE_N, alpha: float = SUITE_ALPHA, seed: int = 0) -> dict:
    """Audit one case at the object's claim: its row (a dict, JSON-ready).  ImportError if absent."""
    obj = case.build()
    lib = libraries.wrap(obj)
    t0, c0 = time.perf_counter(), time.process_time()
    res = audit(lib, case.x, case.x_prime, n=n, alpha=alpha, seed=seed)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    w = res.witness
    row = {"library": lib.library, "version": lib.version, "case": case.name, "why": case.why,
           "object": lib.name, "x": _jsonable(case.x), "x_prime": _jsonable(case.x_prime),
           "claim": res.info["claim"]["text"].removeprefix("claim: "), "eps": res.eps, "delta": res.delta,
           "law": _layer(res.law), "floating_point": _layer(res.floating_point),
           "headline": res.headline,
           "witness": {"pair": [_jsonable(w["x"]), _jsonable(w["x_prime"])], "event": w["event"],
                       "count_x": w["count_x"], "count_x_prime": w["count_x_prime"],
                       "n_x": w.get("n_x", res.n), "n_x_prime": w.get("n_x_prime", res.n)},
           "n": res.n, "alpha": alpha, "seed": seed, "samples": res.n_samples, "seconds": seconds, "cpu_seconds": cpu,
           "seeded": res.info["library"]["seeded"], "seeding": res.info["library"]["seeding"],
           "notes": res.info["claim"]["notes"]}
    return judge(row)


def adapter_named(name: str):
    """The adapter of a library by its distribution name."""
    return next(a for a in libraries.ADAPTERS if a.name == name)


def run_live(only=None, n: int = SUITE_N, seed: int = 0, log=print) -> tuple[list, dict]:
    """Run every case whose library imports here (``only``: these libraries): (rows, {library: why skipped}).

    A case whose object the audit refuses (no (eps, delta) claim, ...) is a row with its one-line reason.
    """
    rows, skipped = [], {}
    for case in cases():
        if only and case.library not in only:
            continue
        try:
            row = run_case(case, n=n, seed=seed)
        except ImportError as err:
            skipped.setdefault(case.library, f"{type(err).__name__}: {err}")
            log(f"{case.library:12s} {case.name:40s} skipped ({err})")
            continue
        except InputError as err:
            adapter = adapter_named(case.library)
            rows.append({"library": case.library, "version": adapter.version(), "case": case.name, "why": case.why,
                         "refused": " ".join(str(err).split())})
            log(f"{case.library:12s} {case.name:40s} refused: {err}")
            continue
        rows.append(row)
        log(f"{row['library']:12s} {row['case']:40s} law {_cell(row['law'])}; floating point "
            f"{_cell(row['floating_point'])}; {row['seconds']:.0f} s")
    return rows, skipped


def environment(name: str, command: str) -> dict:
    """The running environment, for recorded rows: name, command, Python, numpy and the libraries' versions."""
    from dpbench.engine.result import code_and_versions
    return {"name": name, "command": command, "python": platform.python_version(), "numpy": np.__version__,
            "libraries": {a.name: a.version() for a in libraries.ADAPTERS}, "code": code_and_versions(),
            "date": datetime.date.today().isoformat()}


def write_rows(path, rows: list, env: dict, skipped: dict | None = None) -> None:
    """Record rows of a run (``--rows-out``) with its environment and the libraries that did not import."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    env = {**env, "skipped": skipped or {}}
    Path(path).write_text(json.dumps({"environment": env, "rows": rows}, indent=1) + "\n")


def read_recorded(folder=RECORDED) -> tuple[list[dict], list[tuple[dict, dict]]]:
    """(environments, (environment, row) of every recorded row), from ``folder/*.json`` (by file name)."""
    envs, out = [], []
    for path in sorted(Path(folder).glob("*.json")):
        try:
            data = json.loads(path.read_text())
            env, rows = data["environment"], data["rows"]
        except (OSError, ValueError, KeyError) as err:
            raise InputError(f"{path}: not a recorded-rows file of dpbench audit-suite --libraries ({err})") from None
        env.setdefault("file", str(path))
        envs.append(env)
        out += [(env, row) for row in rows]
    return envs, out


# ------------------------------------------------------------------ the report
def _cell(layer: dict) -> str:
    if layer["status"] == "not tested":
        return "not tested"
    bound = "inf" if math.isinf(layer["eps_lower_bound"]) else f"{layer['eps_lower_bound']:.3f}"
    capped = " (capped by n)" if layer["unbounded"] else ""
    return f"**VIOLATED** {bound}{capped}" if layer["violated"] else f"holds ({bound})"


def _short(text: str, limit: int = 110) -> str:
    text = str(text).replace("|", "\\|")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _pair(p) -> str:
    return ", ".join(json.dumps(v) if not isinstance(v, str) or not v.startswith("array") else v for v in p)


def table(rows: list[tuple[str, dict]]) -> list[str]:
    """Markdown lines of the rows (environment name, row)."""
    lines = ["| library | mechanism | claim audited (source) | expected: law / floating point | law | "
             "floating point | as expected | witness (headline) | samples | seconds | seeded | run in |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for env, r in rows:
        if "refused" in r:
            lines.append(f"| {r['library']} {r['version']} | {r['case']} | **refused**: {_short(r['refused'], 300)} "
                         f"| | | | **NO** | | | | | {env} |")
            continue
        w = r["witness"]
        witness = (f"x={_pair([w['pair'][0]])}, x'={_pair([w['pair'][1]])}: {_short(w['event'], 90)} "
                   f"({w['count_x']:,} of {w['n_x']:,} vs {w['count_x_prime']:,} of {w['n_x_prime']:,})")
        seeded = "yes" if r["seeded"] else "no (OS entropy)"
        notes = "".join(f" *Note: {_short(t, 200)}*" for t in r.get("notes", []))
        lines.append(f"| {r['library']} {r['version']} | {r['case']}: `{_short(r['object'], 80)}` | "
                     f"{_short(r['claim'], 260)}{notes} | {r['expect'][LAW]} / {r['expect'][FLOATING_POINT]} | "
                     f"{_cell(r['law'])} | {_cell(r['floating_point'])} | {'yes' if r['as_expected'] else '**NO**'} | "
                     f"{witness} | {r['samples']:.2e} | {r['seconds']:.0f} | {seeded} | {env} |")
    return lines


def _env_line(env: dict, rows: int) -> str:
    """One environment of the recorded rows: its libraries, the cases it could not run, how it was made."""
    inst = env.get("install", {})
    versions = ", ".join(f"{k} {v}" for k, v in env.get("libraries", {}).items() if v != "not installed")
    skipped = "; ".join(f"{k}: {_short(v, 160)}" for k, v in env.get("skipped", {}).items()
                        if k in inst.get("libraries", [k]))
    if not inst:
        made = "by hand (see the guide's install matrix)"
    elif inst.get("exit_status") == 0:
        made = f"`{inst['command']}`: installs, {inst['seconds']} s (measured under load)"
    else:
        made = f"`{inst.get('command', '')}`: **fails**: {_short(inst.get('error', '?'), 200)}"
    return (f"| {env['name']} | {versions} | {env.get('python', '')}, numpy {env.get('numpy', '')} | {made} | "
            f"{rows} | {skipped} | `{env.get('command', '')}` | {_short(env.get('code', ''), 90)} | "
            f"{env.get('date', '')} |")


def report(live: list, skipped: dict, recorded: tuple, command: str, env_name: str, wall: float) -> str:
    """The markdown report: the rows run here, the recorded rows (``recorded``: :func:`read_recorded`) of
    versions not importable here, the libraries skipped (with their install lines), the install matrix."""
    environments, recorded = recorded
    live, recorded = [judge(r) for r in live], [(env, judge(r)) for env, r in recorded]
    here = {(r["library"], r["version"]) for r in live}
    kept = [(env["name"], r) for env, r in recorded if (r["library"], r["version"]) not in here]
    covered = {r["library"] for r in live} | {r["library"] for _, r in kept}
    n_rows = len(live) + len(kept)
    libs = sorted({r["library"] for r in live} | {r["library"] for _, r in kept})
    lines = ["# DP libraries audited from their own objects", "",
             f"Regenerate with `{command}` (the rows of library versions importable here are run again; those of "
             f"other environments are read from `{RECORDED}/*.json`, each written by the command named in its "
             "environment below).", "",
             f"Every row is one mechanism object built as a user builds it, passed as it is to `verify.audit(obj, x, "
             f"x_prime)`: the claim is the object's own (`verify.audit.libraries`), printed with its source; every "
             f"output is one call of the library's own sampler. One configuration for every row: the default audit, "
             f"n = {SUITE_N:,} certification outputs per input, alpha = {SUITE_ALPHA:g} (shared by the two layers), "
             f"seed 0. `expected` is what the case must show, known before the run: a correct law holds its claim; a "
             f"sampler that adds float noise to a float input is caught by the floating-point layer; a wrong claim "
             f"(an understated sensitivity, a privacy map that halves eps) is caught by the law; `either`: the case "
             f"tests the other layer. Bounds are certified lower bounds on eps (at the claim's delta); `capped by "
             f"n`: the witness event never occurred under x', so the bound is what n samples can certify. "
             f"`seeded: no`: the library draws from the operating system's entropy, so the row is not reproducible "
             f"by seed (another run gives other samples and slightly different bounds; the verdicts are statements "
             f"at confidence 1 - alpha either way). `seconds`: wall time of the audit, measured under load on a "
             f"2-core machine shared with other jobs.", "",
             f"{n_rows} rows over {len(libs)} libraries ({', '.join(libs)}); this run: {len(live)} rows in "
             f"{wall:.0f} s in environment `{env_name}`.", ""]
    lines += table([(env_name, r) for r in live] + kept)
    missing = [(a, skipped.get(a.name, "not run here (another --library was chosen)")) for a in libraries.ADAPTERS
               if a.name not in covered]
    if missing:
        lines += ["", "## Skipped: not installed here, and no recorded run", ""]
        lines += [f"- **{a.name}**: {why}. Install: `{a.install}`" for a, why in missing]
    absent = [a for a in libraries.ADAPTERS if a.name in skipped and a.name in covered]
    if absent:
        lines += ["", "Not importable in this environment, shown from recorded runs: "
                  + "; ".join(f"{a.name} (install: `{a.install}`)" for a in absent) + "."]
    if environments:
        lines += ["", "## The environments of the recorded rows", "",
                  "Each row was recorded by the command shown, run inside the environment (`--rows-out`); "
                  "`python -m verify.audit.suites.library_envs` makes these environments from scratch and "
                  "times their installs. What installs with what: the install matrix of "
                  "[dpbench/guides/auditing.md](../dpbench/guides/auditing.md). `cases skipped`: cases written "
                  "for other versions of the library.", "",
                  "| environment | libraries | Python, numpy | made | rows | cases skipped | command | code | date |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for env in environments:
            lines.append(_env_line(env, sum(1 for e, _ in recorded if e is env)))
    lines += ["", "## Findings", "",
              "Every floating-point violation of a library's own mechanism in this table is confirmed by a count that "
              "does not use dpbench, [low_bits_check.py](low_bits_check.py) (the event 'the release is not a multiple "
              "of 2^-53', impossible under x' = 1 and frequent under x = 0): python-dp's Gaussian, also inside "
              "PipelineDP, written up for upstream in [pydp_gaussian_float_leak.md](pydp_gaussian_float_leak.md); "
              "the others (diffprivlib's float Laplace and Gaussian, OpenDP 0.4's float Laplace) in "
              "[audit_libraries_findings.md](audit_libraries_findings.md). The law violations are the wrong claims "
              "the suite plants (an understated sensitivity, a privacy map that halves eps), except one: OpenDP "
              "0.4.0's randomised response, whose lie is a Bernoulli(prob) bit (eps ln 13, not ln 3; fixed by "
              "0.5.0), confirmed by [opendp_rr_bool_check.py](opendp_rr_bool_check.py) in the same file."]
    unexpected = [(e, r) for e, r in [(env_name, r) for r in live] + kept if not r.get("as_expected", False)]
    lines += ["", f"Rows as expected: {n_rows - len(unexpected)} of {n_rows}."
              + ("" if not unexpected else " Not as expected: " + "; ".join(
                  f"{r['library']} {r['version']} {r['case']}" for _, r in unexpected) + ".")]
    return "\n".join(lines) + "\n"
