"""Reading a paper's claims table (``claims.toml``) and its choices (``paper.toml``), validated.

Every key is checked when the table loads, before anything runs: an unknown test kind or key
gets the closest valid name, a number must be a number, an option one its test knows, a
tolerance needs the claim's ``effect`` (and is smaller than it), and a claim's readings must name
declared choices and give an entry for every plausible reading of each (the format:
``dpbench/guides/reports.md``, "Readings").
"""
from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from ...validation import InputError, closest_names
from .model import CATEGORIES, REPLACE, Choice, Claim, Reading
from .registry import TESTS, ClaimTest

#: keys every claim may have, whatever its test
COMMON_KEYS = {"id", "where", "statement", "test", "horizon", "quantity", "note", "category", "effect",
               "readings", "family", "cannot_fail", "tolerance_source"}
#: keys (top level or in ``args``) that set a tolerance band around a claimed value
TOLERANCE_KEYS = ("tolerance", "within")
#: keys that are numbers wherever a test reads them
NUMBER_KEYS = ("effect", "tolerance", "within", "expected", "at_least", "at_most", "departure")
#: keys of a ``[[choice]]`` and of a ``[[choice.reading]]`` in paper.toml
CHOICE_KEYS = {"id", "question", "source", "reading"}
READING_KEYS = {"id", "text", "why", "plausible"}


# ------------------------------------------------------------------ choices
def load_choices(path: Path | None, raw: Mapping | None = None) -> dict[str, Choice]:
    """The ``[[choice]]`` entries of a paper's ``paper.toml`` (none if the file is absent)."""
    if raw is None:
        if path is None or not Path(path).is_file():
            return {}
        try:
            raw = tomllib.loads(Path(path).read_text())
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"{path}: {err}") from None
    name = Path(path).name if path is not None else "paper.toml"
    out: dict[str, Choice] = {}
    entries = raw.get("choice", [])
    if not isinstance(entries, list):
        raise InputError(f"{name}: 'choice' must be a list of tables ([[choice]] entries)")
    for i, entry in enumerate(entries):
        where = f"{name} choice {i + 1}" + (f" ({entry.get('id')!r})" if isinstance(entry, dict) else "")
        if not isinstance(entry, dict):
            raise InputError(f"{where}: not a table")
        _known(where, entry, CHOICE_KEYS)
        for key in ("id", "question", "source", "reading"):
            if key not in entry:
                raise InputError(f"{where}: lacks {key!r} (a choice has id, question, source and its "
                                 "[[choice.reading]] entries)")
        cid = str(entry["id"])
        if cid in out:
            raise InputError(f"{name}: choice id {cid!r} used twice")
        readings, seen = [], set()
        for j, r in enumerate(entry["reading"]):
            rwhere = f"{where} reading {j + 1}" + (f" ({r.get('id')!r})" if isinstance(r, dict) else "")
            if not isinstance(r, dict):
                raise InputError(f"{rwhere}: not a table")
            _known(rwhere, r, READING_KEYS)
            if "id" not in r:
                raise InputError(f"{rwhere}: lacks 'id'")
            plausible = r.get("plausible", True)
            if not isinstance(plausible, bool):
                raise InputError(f"{rwhere}: 'plausible' must be true or false (got {plausible!r})")
            if not r.get("why"):
                raise InputError(f"{rwhere}: lacks 'why' (why the reading is plausible, or why it is pruned)")
            if r["id"] in seen:
                raise InputError(f"{where}: reading id {r['id']!r} used twice")
            seen.add(r["id"])
            readings.append(Reading(cid, str(r["id"]), str(r.get("text", r["id"])), str(r["why"]), plausible))
        if not any(r.plausible for r in readings):
            raise InputError(f"{where}: every reading is pruned; at least one must be plausible")
        out[cid] = Choice(cid, str(entry["question"]), str(entry["source"]), tuple(readings))
    return out


def _known(where: str, entry: Mapping, allowed) -> None:
    unknown = sorted(set(entry) - set(allowed))
    if unknown:
        near = [m for k in unknown for m in closest_names(k, sorted(allowed), 1)]
        raise InputError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}"
                         + (f"; did you mean {', '.join(near)}?" if near else ""))


# ------------------------------------------------------------------ claims
def load_claims(seed_or_path, choices: Mapping[str, Choice] | None = None) -> list[Claim]:
    """The claims of ``seed_or_path`` ("000": the paper's ``claims.toml``, or a .toml path),
    validated; ``choices`` default to those of the ``paper.toml`` beside the table."""
    path = Path(seed_or_path)
    if path.suffix != ".toml":
        from ...plugins import paper_folder
        path = paper_folder(f"seed{seed_or_path}") / "claims.toml"
    if not path.exists():
        raise InputError(f"no claims table {path}")
    if choices is None:
        choices = load_choices(path.parent / "paper.toml")
    try:
        raw = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"claims table {path}: {err}") from None
    claims, seen = [], set()
    for i, row in enumerate(raw.get("claim", [])):
        where = f"{path.name} claim {i + 1}" + (f" ({row['id']!r})" if "id" in row else "")
        for key in ("id", "where", "statement", "test"):
            if key not in row:
                near = closest_names(key, [k for k in row if k not in COMMON_KEYS], 1)
                raise InputError(f"{where}: lacks {key!r}"
                                 + (f" (is {near[0]!r} a misspelling of it?)" if near else
                                    "; every claim needs id, where, statement and test"))
        cid = str(row["id"])
        if cid in seen:
            raise InputError(f"{path.name}: claim id {cid!r} used twice")
        seen.add(cid)
        test = TESTS.get(row["test"])
        if test is None:
            near = closest_names(str(row["test"]), sorted(TESTS), 1)
            raise InputError(f"{path.name}: claim {cid!r}: key 'test': unknown test {row['test']!r}"
                             + (f" (did you mean {near[0]!r}?)" if near else "")
                             + f"; allowed: {', '.join(sorted(TESTS))}")
        params = {k: v for k, v in row.items() if k not in COMMON_KEYS}
        missing = [k for k in test.keys if k not in params]
        unknown = [k for k in params if k not in test.keys and k not in test.optional]
        if missing or unknown:
            near = [m for k in unknown for m in closest_names(k, test.keys + test.optional + tuple(COMMON_KEYS), 1)]
            raise InputError(f"{path.name} claim {cid!r} ({test.name}): "
                             + (f"missing {', '.join(missing)}" if missing else "")
                             + ("; " if missing and unknown else "")
                             + (f"unknown key(s) {', '.join(unknown)}; allowed: "
                                f"{', '.join(test.keys + test.optional)}" if unknown else "")
                             + (f"; did you mean {', '.join(near)}?" if near else ""))
        _check_values(path.name, cid, test, row, params)
        _check_range(path.name, cid, params)
        category = str(row.get("category", "paper"))
        if category not in CATEGORIES:
            raise InputError(f"{path.name} claim {cid!r}: category must be one of {', '.join(CATEGORIES)} "
                             f"(got {category!r})")
        _check_tolerance(path.name, cid, row, params)
        readings = _readings(path.name, cid, test, row.get("readings", {}), choices)
        for key in ("family", "cannot_fail", "tolerance_source", "note"):
            if key in row and not isinstance(row[key], str):
                raise InputError(f"{path.name} claim {cid!r}: key {key!r} must be text (got {row[key]!r})")
        claims.append(Claim(cid, str(row["where"]), str(row["statement"]), test.name, params,
                            _horizon(path.name, cid, row.get("horizon")),
                            row.get("quantity"), str(row.get("note", "")), category, readings,
                            family=row.get("family"), cannot_fail=str(row.get("cannot_fail", "")),
                            margin=str(row.get("tolerance_source", ""))))
    return claims


def _readings(name: str, cid: str, test: ClaimTest, raw, choices: Mapping[str, Choice]) -> dict:
    """``[claim.readings.CHOICE]``: for every plausible reading of each named choice, the keys it
    overrides (keys the claim's test knows, or ``horizon``) or the text it substitutes
    (``replace``)."""
    if not isinstance(raw, Mapping):
        raise InputError(f"{name} claim {cid!r}: 'readings' must be a table ([claim.readings.CHOICE] entries)")
    out = {}
    allowed = set(test.keys) | set(test.optional) | {"horizon", "cannot_fail", REPLACE}
    for choice_id, entries in raw.items():
        choice = choices.get(choice_id)
        if choice is None:
            near = closest_names(choice_id, sorted(choices), 1)
            raise InputError(f"{name} claim {cid!r}: readings of an undeclared choice {choice_id!r}"
                             + (f" (did you mean {near[0]!r}?)" if near else "")
                             + "; declare it as a [[choice]] in the paper's paper.toml"
                             + (f" (declared: {', '.join(sorted(choices))})" if choices else ""))
        if not isinstance(entries, Mapping):
            raise InputError(f"{name} claim {cid!r}: readings.{choice_id} must be a table (reading id -> keys)")
        ids = {r.id for r in choice.readings}
        for rid, keys in entries.items():
            if rid not in ids:
                near = closest_names(rid, sorted(ids), 1)
                raise InputError(f"{name} claim {cid!r}: readings.{choice_id}: no reading {rid!r} of choice "
                                 f"{choice_id!r}" + (f" (did you mean {near[0]!r}?)" if near else "")
                                 + f"; its readings: {', '.join(sorted(ids))}")
            if not isinstance(keys, Mapping):
                raise InputError(f"{name} claim {cid!r}: readings.{choice_id}.{rid} must be a table of the "
                                 "claim's keys that reading changes ({} if none)")
            bad = sorted(set(keys) - allowed)
            if bad:
                raise InputError(f"{name} claim {cid!r}: readings.{choice_id}.{rid}: key(s) {', '.join(bad)} are "
                                 f"not keys of a {test.name} claim; allowed: {', '.join(sorted(allowed))}")
            if "horizon" in keys:
                _horizon(name, cid, keys["horizon"])
            subs = keys.get(REPLACE, {})
            if not isinstance(subs, Mapping) or not all(isinstance(k, str) and k and isinstance(v, str)
                                                        for k, v in subs.items()):
                raise InputError(f"{name} claim {cid!r}: readings.{choice_id}.{rid}.{REPLACE} must be a table of "
                                 f"text -> text (substituted in every string of the claim; got {subs!r})")
            _check_range(name, cid, keys)
        absent = [r.id for r in choice.plausible if r.id not in entries]
        if absent:
            raise InputError(f"{name} claim {cid!r}: readings.{choice_id} gives no entry for the plausible "
                             f"reading(s) {', '.join(absent)} (write {absent[0]} = {{}} if it changes nothing "
                             "for this claim)")
        out[choice_id] = {rid: dict(keys) for rid, keys in entries.items()}
    return out


def _check_range(name: str, cid: str, keys: Mapping) -> None:
    """A ``horizon_range`` (top level or in ``args``) is [lo, hi] with 1 <= lo < hi."""
    from .horizon_range import KEY, check_range
    args = keys.get("args") if isinstance(keys.get("args"), Mapping) else {}
    for value in (keys.get(KEY), args.get(KEY)):
        if value is not None:
            check_range(value, f"{name} claim {cid!r}")


def _horizon(name: str, cid: str, value) -> float | None:
    """A claim's ``horizon``: None, or a number >= 1 (the T its runs are compared at)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1:
        raise InputError(f"{name} claim {cid!r}: key 'horizon' must be a number >= 1 (the T the claim is "
                         f"judged at; got {value!r})")
    return float(value)


def _check_values(name: str, cid: str, test: ClaimTest, row: Mapping, params: Mapping) -> None:
    """The values a test reads as numbers are numbers, and an option's value is one it knows,
    when the table is loaded: a typo must not surface as a traceback after the runs, nor as
    another test than the one the report names."""
    for key in NUMBER_KEYS:
        value = row.get(key)
        if key in row and (isinstance(value, bool) or not isinstance(value, (int, float))):
            got = f"the string {value!r}" if isinstance(value, str) else repr(value)
            raise InputError(f"{name} claim {cid!r}: key {key!r} must be a number (got {got})")
    for key, allowed in test.choices.items():
        if key in params and params[key] not in allowed:
            near = closest_names(params[key], allowed, 1)
            raise InputError(f"{name} claim {cid!r} ({test.name}): key {key!r} must be one of "
                             f"{', '.join(allowed)} (got {params[key]!r})"
                             + (f"; did you mean {near[0]}?" if near else ""))


def _check_tolerance(name: str, cid: str, row: Mapping, params: Mapping) -> None:
    """A tolerance (``tolerance`` or ``within``, at the top level or in ``args``) must come with
    the claim's ``effect``, the size of the effect the claim is about, and be smaller than it: a
    band as wide as the effect would accept the effect's absence."""
    args = params.get("args") if isinstance(params.get("args"), Mapping) else {}
    found = [(k, params[k]) for k in TOLERANCE_KEYS if k in params]
    found += [(f"args.{k}", args[k]) for k in TOLERANCE_KEYS if k in args]
    for key, value in found:
        effect = row.get("effect")
        if effect is None:
            raise InputError(f"{name} claim {cid!r}: key {key!r} sets a tolerance ({value!r}) but the claim "
                             "states no 'effect' (the size of the effect it is about, larger than the tolerance)")
        try:
            ok = 0 <= float(value) < float(effect)
        except (TypeError, ValueError):
            raise InputError(f"{name} claim {cid!r}: key {key!r} and 'effect' must be numbers "
                             f"(got {value!r} and {effect!r})") from None
        if not ok:
            raise InputError(f"{name} claim {cid!r}: key {key!r}: tolerance {value!r} is not smaller than the "
                             f"claim's effect {effect!r} (a band that wide accepts the effect's absence)")
