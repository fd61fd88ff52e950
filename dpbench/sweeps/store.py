"""The result store: one SQLite file per experiment or sweep (``<out>/<name>/results.sqlite``).

Every finished cell is written at once, in one transaction, with its
metadata; SQLite's journal makes the transaction all-or-nothing, so a process
killed at any moment (SIGKILL included) leaves either the whole cell or none
of it, and concurrent writers (several sweeps, several hosts sharing the
file) are serialised by SQLite's locks.  Each cell also carries a sha256 of
its arrays, checked whenever it is read: a damaged cell counts as missing and
is recomputed.

Open it with any SQLite tool::

    sqlite3 results.sqlite 'SELECT label, reps, mean_final_regret FROM summary'

Tables: ``store_info`` (format, name, dpbench version), ``configs`` (one row
per configuration: policy, environment, parameters as JSON, horizon, seed,
checkpoints), ``runs`` (the experiment's labels at a horizon and seed -> config), ``cells`` (the
regret and pull-count arrays of a repetition range as ``.npy`` blobs:
``numpy.load(io.BytesIO(blob))``, with seconds, worker, host, time, versions
and the code stamp), ``repetitions`` (final regret per
repetition), and the view ``summary``.

A store is refused, with a message saying why and what to do, if it was
written in another store format or by another dpbench version, belongs to
another experiment name, or already maps one of the experiment's runs (its
label, at the same horizon and seed) to a different configuration, i.e. the
experiment's definition changed: results are never silently mixed.  A stored cell
whose code stamp differs from the code that would compute it now (dpbench's
compiled sources or a user component changed, :mod:`dpbench.engine.stamps`) is
discarded and recomputed by the runner, which says so.  Runs of
one experiment at several horizons or seeds (``--horizon``, a quick report
and a full one) are different runs and live side by side.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import sqlite3
from pathlib import Path

import numpy as np

from ..engine.result import SimulationResult, now_iso, package_versions, to_json
from ..engine.stamps import compiled_sources_hash
from ..validation import InputError
from .grid import canonical_json

#: bumped whenever the schema or the meaning of a column changes
FORMAT = 2
FILENAME = "results.sqlite"
SEEDING = "repetition r uses SeedSequence(seed, spawn_key=(r,)) -> uint32"

_SCHEMA = [
    "CREATE TABLE store_info (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE configs (
        config_id TEXT PRIMARY KEY, policy TEXT NOT NULL, label TEXT NOT NULL,
        environment TEXT NOT NULL, params TEXT NOT NULL, env_params TEXT NOT NULL,
        horizon INTEGER NOT NULL, seed INTEGER NOT NULL, checkpoints TEXT NOT NULL,
        means TEXT NOT NULL, info TEXT NOT NULL, warnings TEXT NOT NULL, description TEXT NOT NULL)""",
    """CREATE TABLE runs (
        run_key TEXT NOT NULL, horizon INTEGER NOT NULL, seed INTEGER NOT NULL, panel TEXT NOT NULL,
        label TEXT NOT NULL, config_id TEXT NOT NULL REFERENCES configs(config_id),
        PRIMARY KEY (run_key, horizon, seed))""",
    """CREATE TABLE cells (
        config_id TEXT NOT NULL REFERENCES configs(config_id), first_rep INTEGER NOT NULL,
        reps INTEGER NOT NULL, regret BLOB NOT NULL, pulls BLOB NOT NULL, sha256 TEXT NOT NULL,
        seconds REAL, compile_seconds REAL, threads INTEGER, worker TEXT, host TEXT,
        created TEXT NOT NULL, code_stamp TEXT NOT NULL, versions TEXT NOT NULL,
        PRIMARY KEY (config_id, first_rep, reps))""",
    """CREATE TABLE repetitions (
        config_id TEXT NOT NULL, rep INTEGER NOT NULL, final_regret REAL NOT NULL,
        PRIMARY KEY (config_id, rep))""",
    """CREATE VIEW summary AS
        SELECT r.panel, r.label, r.horizon, r.seed, c.policy, c.environment, c.params, c.env_params,
               COUNT(p.rep) AS reps, AVG(p.final_regret) AS mean_final_regret
        FROM runs r JOIN configs c ON c.config_id = r.config_id
        LEFT JOIN repetitions p ON p.config_id = r.config_id
        GROUP BY r.run_key, r.horizon, r.seed ORDER BY r.rowid""",
]


class StoreError(InputError):
    """A result store that must not be used (other format, version, experiment or configuration)."""


def code_stamp() -> str:
    """Short hash of dpbench's compiled sources: the stamp of a cell of built-in components.
    A cell with user components has :func:`dpbench.engine.stamps.plan_stamp` (which also covers
    their code)."""
    return compiled_sources_hash()[:16]


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def _from_npy(blob: bytes) -> np.ndarray:
    return np.load(io.BytesIO(blob), allow_pickle=False)


def _checksum(config_id: str, first_rep: int, reps: int, regret: bytes, pulls: bytes) -> str:
    digest = hashlib.sha256(f"{config_id}|{first_rep}|{reps}|".encode())
    digest.update(regret)
    digest.update(b"|")
    digest.update(pulls)
    return digest.hexdigest()


class ResultStore:
    """The SQLite result store of experiment or sweep ``name`` at ``path``.

    ``ResultStore(path, name)`` creates the file if needed and refuses one of
    another format, dpbench version or name (:class:`StoreError`);
    ``ResultStore.open(path)`` opens an existing store read-only, e.g. to
    ``results()`` it.
    """

    def __init__(self, path, name: str | None, *, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self.damaged: list[tuple[str, int, int]] = []       # cells whose checksum failed
        if readonly:
            if not self.path.exists():
                raise StoreError(f"no result store at {self.path}")
            uri = f"file:{self.path.resolve()}?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, timeout=120, isolation_level=None)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=120, isolation_level=None)
        try:
            self.info = self._initialise(name)
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise StoreError(f"{self.path} is not a readable dpbench result store ({err}); move it "
                             "away, or rerun with --force to replace it") from None
        except BaseException:
            self._db.close()
            raise
        self.name = self.info["name"]
        self._versions = json.dumps(to_json(package_versions()))

    @classmethod
    def open(cls, path) -> ResultStore:
        return cls(path, None, readonly=True)

    @staticmethod
    def remove(path) -> None:
        """Delete a store file and its SQLite side files."""
        path = Path(path)
        for suffix in ("", "-journal", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)

    def close(self):
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------ opening
    def _initialise(self, name):
        from ..version import __version__
        if not self.readonly:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
                if not tables:
                    for statement in _SCHEMA:
                        self._db.execute(statement)
                    self._db.executemany("INSERT INTO store_info VALUES (?, ?)", [
                        ("format", str(FORMAT)), ("name", name), ("dpbench", __version__),
                        ("created", now_iso())])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        if "store_info" not in tables:
            raise StoreError(f"{self.path} is an SQLite file but not a dpbench result store; move it "
                             "away or choose another --out")
        info = dict(self._db.execute("SELECT key, value FROM store_info"))
        if info.get("format") != str(FORMAT):
            raise StoreError(f"{self.path} was written by dpbench {info.get('dpbench', '?')} in store "
                             f"format {info.get('format')}; this dpbench ({__version__}) reads format "
                             f"{FORMAT} only. Rerun with --force to replace it, or --out to write elsewhere")
        if name is not None and info.get("dpbench") != __version__:
            raise StoreError(f"{self.path} holds results of dpbench {info.get('dpbench')}, this is dpbench "
                             f"{__version__}; results of different versions are never mixed. Rerun with "
                             "--force to recompute, or --out to write elsewhere")
        if name is not None and info.get("name") != name:
            raise StoreError(f"{self.path} holds results of {info.get('name')!r}, not {name!r}; "
                             "use another --out")
        return info

    # --------------------------------------------------------- registering
    def register(self, entries, *, replace: bool = False) -> None:
        """Record the runs ``(run_key, panel, label, config, plan)`` of an experiment.

        Raises :class:`StoreError` if the store already maps a run key, at the same
        horizon and seed, to a different configuration (the experiment file changed), unless
        ``replace`` (``--force``): the run key then names the new configuration.
        """
        entries = list(entries)
        with self._transaction():
            conflicts = []
            for key, _, _, config, _ in entries:
                row = self._db.execute(
                    "SELECT r.config_id, c.description FROM runs r JOIN configs c ON c.config_id = r.config_id "
                    "WHERE r.run_key = ? AND r.horizon = ? AND r.seed = ?",
                    (key, config.horizon, config.seed)).fetchone()
                if row is not None and row[0] != config.config_id:
                    conflicts.append((key, json.loads(row[1]), config.describe()))
            if conflicts and not replace:
                raise StoreError(self._conflict_message(conflicts))
            for key, _, _, config, _ in entries if conflicts else ():
                self._db.execute("DELETE FROM runs WHERE run_key = ? AND horizon = ? AND seed = ?",
                                 (key, config.horizon, config.seed))
            for key, panel, label, config, plan in entries:
                self._db.execute(
                    "INSERT OR IGNORE INTO configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (config.config_id, config.policy, plan.label, config.environment,
                     canonical_json(config.params), canonical_json(config.env_params), config.horizon,
                     config.seed, canonical_json(list(config.checkpoints)),
                     canonical_json(plan.instance.means),
                     canonical_json({**plan.built.info, **plan.instance.info}),
                     canonical_json(list(plan.warnings)), canonical_json(config.describe())))
                self._db.execute("INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?)",
                                 (key, config.horizon, config.seed, panel, label, config.config_id))

    def _conflict_message(self, conflicts) -> str:
        key, old, new = conflicts[0]
        diffs = []
        for field in new:
            if old.get(field) != to_json(new[field]):
                if field == "checkpoints":
                    diffs.append("checkpoints differ")
                else:
                    diffs.append(f"{field}: stored {canonical_json(old.get(field))}, "
                                 f"now {canonical_json(new[field])}")
        more = f" (and {len(conflicts) - 1} more runs)" if len(conflicts) > 1 else ""
        return (f"{self.path} holds run {key!r} of {self.name!r} (horizon {new['horizon']}, seed "
                f"{new['seed']}) with a different configuration "
                f"({'; '.join(diffs)}){more}. Results of different configurations are never mixed: "
                "rerun with --force to discard the stored results, or write to another results folder "
                "(dpbench report --results DIR; dpbench run/sweep --out DIR)")

    # ------------------------------------------------------------- cells
    def write_cell(self, config_id: str, first_rep: int, regret: np.ndarray, pulls: np.ndarray, *,
                   seconds=math.nan, compile_seconds=math.nan, threads=1, worker="", host="",
                   stamp=None) -> None:
        """Store repetitions ``first_rep ..`` of a config: one all-or-nothing transaction.
        ``stamp``: compiled-source stamp of the code that computed them (default: this process's)."""
        regret = np.asarray(regret, dtype=np.float64)
        pulls = np.asarray(pulls, dtype=np.int64)
        reps = int(regret.shape[0])
        if reps < 1 or pulls.shape[0] != reps:
            raise ValueError(f"a cell needs >= 1 repetition with matching pulls "
                             f"(got {regret.shape}, {pulls.shape})")
        regret_blob, pulls_blob = _npy(regret), _npy(pulls)
        row = (config_id, int(first_rep), reps, regret_blob, pulls_blob,
               _checksum(config_id, int(first_rep), reps, regret_blob, pulls_blob),
               float(seconds), float(compile_seconds), int(threads), str(worker), str(host), now_iso(),
               stamp or code_stamp(), self._versions)
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            self._db.executemany("INSERT OR REPLACE INTO repetitions VALUES (?, ?, ?)",
                                 [(config_id, int(first_rep) + i, float(regret[i, -1])) for i in range(reps)])

    def cells(self, config_id: str) -> list[dict]:
        """The intact cells of a config, ordered by first repetition (damaged ones are skipped
        and listed in ``self.damaged``)."""
        out = []
        query = ("SELECT first_rep, reps, regret, pulls, sha256, seconds, compile_seconds, threads, worker, "
                 "host, created, code_stamp, versions FROM cells WHERE config_id = ? "
                 "ORDER BY first_rep, reps DESC")
        for (first, reps, regret, pulls, sha, seconds, compile_seconds, threads, worker, host, created,
             stamp, versions) in self._db.execute(query, (config_id,)):
            try:
                ok = _checksum(config_id, first, reps, regret, pulls) == sha
                regret_a, pulls_a = (_from_npy(regret), _from_npy(pulls)) if ok else (None, None)
                ok = ok and regret_a.shape[0] == reps and pulls_a.shape[0] == reps
            except (ValueError, OSError):
                ok = False
            if not ok:
                if (config_id, first, reps) not in self.damaged:
                    self.damaged.append((config_id, first, reps))
                continue
            out.append({"first_rep": first, "reps": reps, "regret": regret_a, "pulls": pulls_a,
                        "seconds": math.nan if seconds is None else seconds,       # SQLite: NaN -> NULL
                        "compile_seconds": math.nan if compile_seconds is None else compile_seconds,
                        "threads": threads,
                        "worker": worker, "host": host, "created": created, "code_stamp": stamp,
                        "versions": versions})
        return out

    def coverage(self, config_id: str, reps: int) -> np.ndarray:
        """Bool array: which of repetitions 0..reps-1 an intact stored cell holds."""
        have = np.zeros(reps, dtype=bool)
        for cell in self.cells(config_id):
            have[cell["first_rep"]:cell["first_rep"] + cell["reps"]] = True
        return have

    def code_stamps(self, config_id: str) -> list[str]:
        """The compiled-source stamps of the code that computed a config's stored cells."""
        return [r[0] for r in self._db.execute(
            "SELECT DISTINCT code_stamp FROM cells WHERE config_id = ? ORDER BY code_stamp", (config_id,))]

    def discard_cells(self, config_id: str, *, keep_stamp: str) -> int:
        """Delete a config's cells computed by code with another stamp (and their repetitions);
        return how many cells were deleted."""
        with self._transaction():
            dropped = self._db.execute("DELETE FROM cells WHERE config_id = ? AND code_stamp != ?",
                                       (config_id, keep_stamp)).rowcount
            self._db.execute("DELETE FROM repetitions WHERE config_id = ?", (config_id,))
            self._db.executemany("INSERT OR REPLACE INTO repetitions VALUES (?, ?, ?)",
                                 [(config_id, c["first_rep"] + i, float(c["regret"][i, -1]))
                                  for c in self.cells(config_id) for i in range(c["reps"])])
        return dropped

    def discard_config(self, config_id: str) -> int:
        """Delete every stored cell of a configuration (``--force``); return how many."""
        with self._transaction():
            dropped = self._db.execute("DELETE FROM cells WHERE config_id = ?", (config_id,)).rowcount
            self._db.execute("DELETE FROM repetitions WHERE config_id = ?", (config_id,))
        return dropped

    def cell_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM cells").fetchone()[0])

    # ------------------------------------------------------------- reading
    def load_result(self, config_id: str, reps: int | None = None) -> SimulationResult:
        """Repetitions 0..reps-1 of a config (default: all stored from 0 on), merged from its cells."""
        row = self._db.execute("SELECT policy, label, environment, params, env_params, horizon, seed, "
                               "checkpoints, means, info, warnings FROM configs WHERE config_id = ?",
                               (config_id,)).fetchone()
        if row is None:
            raise KeyError(f"no configuration {config_id!r} in {self.path}")
        policy, label, environment, params, env_params, horizon, seed, checkpoints, means, info, warnings = row
        cells = self.cells(config_id)
        if reps is None:
            have = np.zeros(max([c["first_rep"] + c["reps"] for c in cells], default=0) + 1, dtype=bool)
            for c in cells:
                have[c["first_rep"]:c["first_rep"] + c["reps"]] = True
            reps = int(np.argmin(have))
        checkpoints = np.asarray(json.loads(checkpoints), dtype=np.int64)
        means = np.asarray(json.loads(means), dtype=np.float64)
        regret = np.empty((reps, checkpoints.size))
        pulls = np.empty((reps, means.size), dtype=np.int64)
        filled = np.zeros(reps, dtype=bool)
        used = []
        for c in cells:
            lo, hi = c["first_rep"], min(c["first_rep"] + c["reps"], reps)
            take = np.flatnonzero(~filled[lo:hi]) + lo if hi > lo else np.array([], dtype=np.int64)
            if take.size == 0:
                continue
            regret[take] = c["regret"][take - lo]
            pulls[take] = c["pulls"][take - lo]
            filled[take] = True
            used.append((c, take.size))
        if reps == 0 or not filled.all():
            missing = int((~filled).sum()) if reps else 0
            raise ValueError(f"{self.path}: configuration {config_id} lacks {missing} of {reps} repetitions")
        return SimulationResult(
            policy=policy, label=label, environment=environment, params=json.loads(params),
            env_params=json.loads(env_params), horizon=int(horizon), seed=int(seed), first_rep=0,
            checkpoints=checkpoints, regret=regret, pulls=pulls, means=means,
            seconds=sum(c["seconds"] * n / c["reps"] for c, n in used),
            compile_seconds=sum(c["compile_seconds"] for c, _ in used),
            threads=max(c["threads"] for c, _ in used), warnings=json.loads(warnings), info=json.loads(info),
            metadata={"versions": json.loads(used[0][0]["versions"]),
                      "created": max(c["created"] for c, _ in used), "seeding": SEEDING,
                      "regret": "pseudo-regret: sum of gaps of the pulled arms",
                      "store": str(self.path), "config_id": config_id, "cells": len(used),
                      "hosts": sorted({c["host"] for c, _ in used}),
                      "code_stamps": sorted({c["code_stamp"] for c, _ in used})})

    def run_configs(self, horizon: int | None = None, seed: int | None = None) -> dict[str, str]:
        """run key -> config id at ``horizon`` and ``seed``, in registration order.  Either may be
        omitted when the store holds runs at one value of it only."""
        rows = self._db.execute("SELECT run_key, horizon, seed, config_id FROM runs ORDER BY rowid").fetchall()
        variants = sorted({(h, s) for _, h, s, _ in rows
                           if (horizon is None or h == horizon) and (seed is None or s == seed)})
        if len(variants) > 1:
            shown = ", ".join(f"horizon={h} seed={s}" for h, s in variants)
            raise ValueError(f"{self.path} holds runs at several sizes ({shown}); pass horizon and seed")
        if not variants and rows and (horizon is not None or seed is not None):
            shown = ", ".join(f"horizon={h} seed={s}" for h, s in sorted({(h, s) for _, h, s, _ in rows}))
            raise ValueError(f"{self.path} holds no run at horizon={horizon} seed={seed}; it holds {shown}")
        return {k: c for k, h, s, c in rows if variants and (h, s) == variants[0]}

    def results(self, horizon: int | None = None, seed: int | None = None) -> dict[str, SimulationResult]:
        """Every registered run (at ``horizon``/``seed``, see :meth:`run_configs`) with at least
        one stored repetition, merged: run key -> result."""
        out = {}
        for key, config_id in self.run_configs(horizon, seed).items():
            try:
                out[key] = self.load_result(config_id)
            except ValueError:
                continue
        return out

    # ------------------------------------------------------------ helpers
    def _transaction(self):
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        return _Transaction(self._db)


class _Transaction:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (``ROLLBACK`` on any exception)."""

    def __init__(self, db):
        self.db = db

    def __enter__(self):
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind, value, tb):
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
        return False
