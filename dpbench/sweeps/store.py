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
checkpoints), ``runs`` (the experiment's labels at a horizon and seed -> config, with the
run's specification), ``cells`` (the regret and pull-count arrays of a repetition range as
``.npy`` blobs: ``numpy.load(io.BytesIO(blob))``, with seconds, worker, host, time, versions,
the code stamp and the invocation that computed them), ``repetitions`` (final regret per
repetition), ``invocations`` (one row per command that ran the experiment: when, where, the
command line and the sizes it asked for), ``definitions`` and ``definition_runs`` (an
experiment's *definition*: its runs at a horizon, seed and repetition count), and the view
``summary``: one row per run of each definition, pooling repetitions 0 .. reps_asked - 1 only
(``reps`` says how many it pools, ``invocations`` which invocations computed them).

**A name means one configuration.**  At a horizon and seed, an experiment (or sweep) name has
one set of runs: a run under that name with other runs (a changed grid, other policies) is
refused with a line naming the difference, unless the caller replaces the stored results
(``--force``) or extends the definition by the new runs (``--extend``: the outputs then show
the union).  The horizon, the seed and the repetition count are sizes: each size is a
definition of its own, kept side by side, sharing the cells they have in common (repetition r
of a configuration is the same numbers whichever definition asked for it).  Summaries never pool
repetitions beyond a definition's count, so a run asked at 50 repetitions reads 50 in the
summary even when 100 are stored.

A store is refused, with a message saying why and what to do, if it was
written in another store format or by another dpbench version, belongs to
another experiment name, or already maps one of the experiment's runs (its
label, at the same horizon and seed) to a different configuration, i.e. the
experiment's definition changed: results are never silently mixed.  A store of the previous
format (2) is upgraded in place when opened for writing (its cells stay; its runs join the
summary once an experiment is run again).  A stored cell
whose code stamp differs from the code that would compute it now (dpbench's
compiled sources or a user component changed, :mod:`dpbench.engine.stamps`) is
discarded and recomputed by the runner, which says so.
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
FORMAT = 3
#: the previous format, upgraded in place (:func:`_upgrade`)
_UPGRADABLE = "2"
FILENAME = "results.sqlite"
SEEDING = "repetition r uses SeedSequence(seed, spawn_key=(r,)) -> uint32"

_SUMMARY = """CREATE VIEW summary AS
        SELECT d.experiment, r.panel, r.label, d.horizon, d.seed, c.policy, c.environment, c.params,
               c.env_params, d.reps AS reps_asked, COUNT(p.rep) AS reps,
               AVG(p.final_regret) AS mean_final_regret,
               (SELECT group_concat(i, ',') FROM (SELECT DISTINCT q.invocation AS i FROM repetitions q
                    WHERE q.config_id = r.config_id AND q.rep < d.reps ORDER BY q.invocation)) AS invocations
        FROM definitions d
        JOIN definition_runs m ON m.experiment = d.experiment AND m.horizon = d.horizon
             AND m.seed = d.seed AND m.reps = d.reps
        JOIN runs r ON r.run_key = m.run_key AND r.horizon = d.horizon AND r.seed = d.seed
        JOIN configs c ON c.config_id = r.config_id
        LEFT JOIN repetitions p ON p.config_id = r.config_id AND p.rep < d.reps
        GROUP BY d.experiment, d.horizon, d.seed, d.reps, m.run_key
        ORDER BY d.rowid, m.position"""

_NEW_IN_3 = [
    """CREATE TABLE invocations (
        invocation INTEGER PRIMARY KEY AUTOINCREMENT, experiment TEXT NOT NULL, horizon INTEGER NOT NULL,
        seed INTEGER NOT NULL, reps INTEGER NOT NULL, command TEXT NOT NULL, host TEXT NOT NULL,
        pid INTEGER NOT NULL, started TEXT NOT NULL)""",
    """CREATE TABLE definitions (
        experiment TEXT NOT NULL, horizon INTEGER NOT NULL, seed INTEGER NOT NULL, reps INTEGER NOT NULL,
        invocation INTEGER NOT NULL, created TEXT NOT NULL,
        PRIMARY KEY (experiment, horizon, seed, reps))""",
    """CREATE TABLE definition_runs (
        experiment TEXT NOT NULL, horizon INTEGER NOT NULL, seed INTEGER NOT NULL, reps INTEGER NOT NULL,
        position INTEGER NOT NULL, run_key TEXT NOT NULL,
        PRIMARY KEY (experiment, horizon, seed, reps, run_key))""",
]

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
        spec TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (run_key, horizon, seed))""",
    """CREATE TABLE cells (
        config_id TEXT NOT NULL REFERENCES configs(config_id), first_rep INTEGER NOT NULL,
        reps INTEGER NOT NULL, regret BLOB NOT NULL, pulls BLOB NOT NULL, sha256 TEXT NOT NULL,
        seconds REAL, compile_seconds REAL, threads INTEGER, worker TEXT, host TEXT,
        created TEXT NOT NULL, code_stamp TEXT NOT NULL, versions TEXT NOT NULL, invocation INTEGER,
        PRIMARY KEY (config_id, first_rep, reps))""",
    """CREATE TABLE repetitions (
        config_id TEXT NOT NULL, rep INTEGER NOT NULL, final_regret REAL NOT NULL, invocation INTEGER,
        PRIMARY KEY (config_id, rep))""",
    *_NEW_IN_3,
    _SUMMARY,
]


def _upgrade(db) -> None:
    """Format 2 -> 3, inside the caller's transaction: the invocation columns, the run
    specifications and the definition tables; the summary view pools per definition.  Stored
    cells stay as they are (their invocation is unknown: NULL)."""
    db.execute("ALTER TABLE runs ADD COLUMN spec TEXT NOT NULL DEFAULT '{}'")
    db.execute("ALTER TABLE cells ADD COLUMN invocation INTEGER")
    db.execute("ALTER TABLE repetitions ADD COLUMN invocation INTEGER")
    for statement in _NEW_IN_3:
        db.execute(statement)
    db.execute("DROP VIEW IF EXISTS summary")
    db.execute(_SUMMARY)
    db.execute("UPDATE store_info SET value = ? WHERE key = 'format'", (str(FORMAT),))


class StoreError(InputError):
    """A result store that must not be used (other format, version, experiment or configuration)."""


class UnusableStore(StoreError):
    """A file this dpbench cannot add to at all (not a store, or another format, version or name):
    ``--force`` replaces it whole."""


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
        self.invocation: int | None = None                  # set by register(): the cells' invocation
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
        except sqlite3.OperationalError as err:      # locked, read-only, full, I/O: the file may be fine
            self._db.close()
            raise StoreError(f"cannot open the result store {self.path} ({err}); nothing was changed: fix the "
                             "cause (another process holding it, space, permissions) and rerun") from None
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise UnusableStore(f"{self.path} is not a readable dpbench result store ({err}); move it "
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
                elif "store_info" in tables and dict(self._db.execute(
                        "SELECT key, value FROM store_info")).get("format") == _UPGRADABLE:
                    _upgrade(self._db)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master")}
        if "store_info" not in tables:
            raise UnusableStore(f"{self.path} is an SQLite file but not a dpbench result store; move it "
                             "away or choose another --out")
        info = dict(self._db.execute("SELECT key, value FROM store_info"))
        readable = {str(FORMAT), _UPGRADABLE} if self.readonly else {str(FORMAT)}
        if info.get("format") not in readable:
            raise UnusableStore(f"{self.path} was written by dpbench {info.get('dpbench', '?')} in store "
                             f"format {info.get('format')}; this dpbench ({__version__}) reads format "
                             f"{FORMAT} only. Rerun with --force to replace it, or --out to write elsewhere")
        if name is not None and info.get("dpbench") != __version__:
            raise UnusableStore(f"{self.path} holds results of dpbench {info.get('dpbench')}, this is dpbench "
                             f"{__version__}; results of different versions are never mixed. Rerun with "
                             "--force to recompute, or --out to write elsewhere")
        if name is not None and info.get("name") != name:
            raise UnusableStore(f"{self.path} holds results of {info.get('name')!r}, not {name!r}; "
                             "use another --out")
        return info

    # --------------------------------------------------------- registering
    def register(self, entries, *, experiment: str | None = None, reps: int | None = None,
                 replace: bool = False, runs: str = "refuse", command: str = "") -> list[dict]:
        """Record the runs ``(run_key, panel, label, config, plan[, spec])`` of an experiment and,
        given ``experiment`` (its name in this store) and ``reps``, its definition and this
        invocation (the cells written next carry its number).

        Raises :class:`StoreError` if the store already maps a run key, at the same
        horizon and seed, to a different configuration (the experiment file changed), unless
        ``replace`` (``--force``): the run key then names the new configuration.  ``runs`` says
        what a different *set* of runs at the same horizon and seed does: ``"refuse"``
        (:class:`StoreError` naming the difference and the options), ``"extend"`` (the definition
        becomes the stored runs followed by the new ones) or ``"adopt"`` (the new set replaces
        the stored one; implied by ``replace``).  Nothing is written when it raises.  Returns the
        stored runs the definition holds beyond ``entries`` (``--extend``): dicts with key, panel,
        label and spec (the run's specification as registered).
        """
        entries = [tuple(e) + ({},) * (6 - len(e)) for e in entries]
        with self._transaction():
            conflicts, extra = self._check(entries, experiment, replace, runs)
            for key, _, _, config, _, _ in entries if conflicts else ():
                self._db.execute("DELETE FROM runs WHERE run_key = ? AND horizon = ? AND seed = ?",
                                 (key, config.horizon, config.seed))
            for key, panel, label, config, plan, spec in entries:
                self._db.execute(
                    "INSERT OR IGNORE INTO configs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (config.config_id, config.policy, plan.label, config.environment,
                     canonical_json(config.params), canonical_json(config.env_params), config.horizon,
                     config.seed, canonical_json(list(config.checkpoints)),
                     canonical_json(plan.instance.means),
                     canonical_json({**plan.built.info, **plan.instance.info}),
                     canonical_json(list(plan.warnings)), canonical_json(config.describe())))
                self._db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                                 "panel = excluded.panel, label = excluded.label, spec = excluded.spec",
                                 (key, config.horizon, config.seed, panel, label, config.config_id,
                                  canonical_json(spec)))
            if experiment is not None and reps is not None and entries:
                horizon, seed = entries[0][3].horizon, entries[0][3].seed
                self._define(experiment, horizon, seed, int(reps),
                             [e["key"] for e in extra] + [e[0] for e in entries], command)
        return extra

    def check(self, entries, *, experiment: str | None = None, replace: bool = False,
              runs: str = "refuse") -> list[dict]:
        """What :meth:`register` would refuse (it raises the same :class:`StoreError`) or return,
        without writing anything: works on a store opened read-only."""
        entries = [tuple(e) + ({},) * (6 - len(e)) for e in entries]
        return self._check(entries, experiment, replace, runs)[1]

    def _check(self, entries, experiment, replace, runs):
        if runs not in ("refuse", "extend", "adopt"):
            raise ValueError(f"runs must be 'refuse', 'extend' or 'adopt' (got {runs!r})")
        conflicts = []
        for key, _, _, config, _, _ in entries:
            row = self._db.execute(
                "SELECT r.config_id, c.description FROM runs r JOIN configs c ON c.config_id = r.config_id "
                "WHERE r.run_key = ? AND r.horizon = ? AND r.seed = ?",
                (key, config.horizon, config.seed)).fetchone()
            if row is not None and row[0] != config.config_id:
                conflicts.append((key, json.loads(row[1]), config.describe()))
        if conflicts and not replace:
            raise StoreError(self._conflict_message(conflicts))
        extra = []
        if experiment is not None and entries and self.info.get("format") == str(FORMAT):
            extra = self._check_definition(experiment, entries, "adopt" if replace else runs)
        return conflicts, extra

    def definitions(self, experiment: str) -> list[dict]:
        """The definitions of ``experiment`` in this store: horizon, seed, reps and run count, the
        latest used first."""
        if self.info.get("format") != str(FORMAT):
            return []
        rows = self._db.execute(
            "SELECT d.horizon, d.seed, d.reps, COUNT(m.run_key) FROM definitions d JOIN definition_runs m "
            "ON m.experiment = d.experiment AND m.horizon = d.horizon AND m.seed = d.seed AND m.reps = d.reps "
            "WHERE d.experiment = ? GROUP BY d.horizon, d.seed, d.reps ORDER BY MAX(d.invocation) DESC",
            (experiment,)).fetchall()
        return [{"horizon": h, "seed": s, "reps": r, "runs": n} for h, s, r, n in rows]

    def _definitions(self, experiment: str, horizon: int, seed: int) -> list[tuple[int, int]]:
        """(reps, invocation) of the definitions of ``experiment`` at a horizon and seed, the
        latest (by the invocation that last used it) first."""
        return self._db.execute("SELECT reps, invocation FROM definitions WHERE experiment = ? AND horizon = ? "
                                "AND seed = ? ORDER BY invocation DESC, rowid DESC",
                                (experiment, horizon, seed)).fetchall()

    def definition_runs(self, experiment: str, horizon: int, seed: int, reps: int | None = None) -> list[str]:
        """The run keys of a definition in order (``reps`` None: the latest at that horizon and seed)."""
        if reps is None:
            found = self._definitions(experiment, horizon, seed)
            if not found:
                return []
            reps = found[0][0]
        return [r[0] for r in self._db.execute(
            "SELECT run_key FROM definition_runs WHERE experiment = ? AND horizon = ? AND seed = ? AND reps = ? "
            "ORDER BY position", (experiment, horizon, seed, reps))]

    def _check_definition(self, experiment, entries, mode) -> list[dict]:
        """Compare ``entries`` with the latest definition of ``experiment`` at their horizon and
        seed; raise (``refuse``) or return the stored runs beyond them (``extend``)."""
        horizon, seed = entries[0][3].horizon, entries[0][3].seed
        stored = self.definition_runs(experiment, horizon, seed)
        given = [e[0] for e in entries]
        added = [k for k in given if k not in set(stored)]
        dropped = [k for k in stored if k not in set(given)]
        if not stored or not (added or dropped) or mode == "adopt":
            return []
        if mode == "refuse":
            raise StoreError(self._definition_message(experiment, horizon, seed, added, dropped))
        out = []
        for key in dropped:
            panel, label, spec = self._db.execute(
                "SELECT panel, label, spec FROM runs WHERE run_key = ? AND horizon = ? AND seed = ?",
                (key, horizon, seed)).fetchone()
            out.append({"key": key, "panel": panel, "label": label, "spec": json.loads(spec)})
        return out

    def _definition_message(self, experiment, horizon, seed, added, dropped) -> str:
        prefix = f"{experiment} / "

        def few(keys):
            keys = [k.removeprefix(prefix) for k in keys]
            return ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
        parts = ([f"{len(added)} new ({few(added)})"] if added else []) + \
            ([f"{len(dropped)} stored {'one is' if len(dropped) == 1 else 'ones are'} not given ({few(dropped)})"]
             if dropped else [])
        return (f"{self.path} holds {experiment!r} at horizon {horizon}, seed {seed} with other runs: "
                f"{' and '.join(parts)}. A name means one configuration: use a new name (sweep --name, the "
                "experiment file's name, or another --out), --force to replace the stored results, or --extend "
                "to add the new runs to the stored ones (the figure and table then show all of them)")

    def _define(self, experiment, horizon, seed, reps, keys, command) -> None:
        """Record the definition (its runs, in order) and this invocation, inside a transaction."""
        import os
        import socket
        cursor = self._db.execute(
            "INSERT INTO invocations (experiment, horizon, seed, reps, command, host, pid, started) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (experiment, horizon, seed, reps, command, socket.gethostname(), os.getpid(), now_iso()))
        self.invocation = int(cursor.lastrowid)
        self._db.execute("INSERT INTO definitions VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                         "invocation = excluded.invocation", (experiment, horizon, seed, reps, self.invocation,
                                                              now_iso()))
        self._db.execute("DELETE FROM definition_runs WHERE experiment = ? AND horizon = ? AND seed = ? AND reps = ?",
                         (experiment, horizon, seed, reps))
        self._db.executemany("INSERT OR IGNORE INTO definition_runs VALUES (?, ?, ?, ?, ?, ?)",
                             [(experiment, horizon, seed, reps, i, key) for i, key in enumerate(keys)])

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
                "(--out DIR of dpbench run or sweep; --results DIR of dpbench report)")

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
               stamp or code_stamp(), self._versions, self.invocation)
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO cells VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             row)
            self._db.executemany("INSERT OR REPLACE INTO repetitions VALUES (?, ?, ?, ?)",
                                 [(config_id, int(first_rep) + i, float(regret[i, -1]), self.invocation)
                                  for i in range(reps)])

    def cells(self, config_id: str) -> list[dict]:
        """The intact cells of a config, ordered by first repetition (damaged ones are skipped
        and listed in ``self.damaged``)."""
        out = []
        invocation = "invocation" if self.info.get("format") == str(FORMAT) else "NULL"
        query = ("SELECT first_rep, reps, regret, pulls, sha256, seconds, compile_seconds, threads, worker, "
                 f"host, created, code_stamp, versions, {invocation} FROM cells WHERE config_id = ? "
                 "ORDER BY first_rep, reps DESC")
        for (first, reps, regret, pulls, sha, seconds, compile_seconds, threads, worker, host, created,
             stamp, versions, computed_by) in self._db.execute(query, (config_id,)):
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
                        "versions": versions, "invocation": computed_by})
        return out

    def coverage(self, config_id: str, reps: int, stamp: str | None = None, *, verify: bool = True) -> np.ndarray:
        """Bool array: which of repetitions 0..reps-1 an intact stored cell holds (computed by
        code of stamp ``stamp``, if given).  ``verify=False`` reads the cells' ranges only, not
        their arrays and checksums (an estimate of the work left)."""
        have = np.zeros(reps, dtype=bool)
        cells = self.cells(config_id) if verify else [
            {"first_rep": f, "reps": r, "code_stamp": c} for f, r, c in self._db.execute(
                "SELECT first_rep, reps, code_stamp FROM cells WHERE config_id = ?", (config_id,))]
        for cell in cells:
            if stamp is None or cell["code_stamp"] == stamp:
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
            self._db.executemany("INSERT OR REPLACE INTO repetitions VALUES (?, ?, ?, ?)",
                                 [(config_id, c["first_rep"] + i, float(c["regret"][i, -1]), c["invocation"])
                                  for c in self.cells(config_id) for i in range(c["reps"])])
        return dropped

    def discard_definitions(self, experiment: str, horizon: int, seed: int) -> int:
        """Delete what the store holds at one horizon and seed (``--force``): the definitions of
        ``experiment`` there (every repetition count), its runs there and their cells (a store of one
        experiment); the other horizons and seeds stay.  Return how many cells were deleted."""
        with self._transaction():
            where = "experiment = ? AND horizon = ? AND seed = ?"
            for table in ("definition_runs", "definitions"):
                self._db.execute(f"DELETE FROM {table} WHERE {where}", (experiment, horizon, seed))
            configs = "SELECT config_id FROM runs WHERE horizon = ? AND seed = ?"
            dropped = self._db.execute(f"DELETE FROM cells WHERE config_id IN ({configs})", (horizon, seed)).rowcount
            self._db.execute(f"DELETE FROM repetitions WHERE config_id IN ({configs})", (horizon, seed))
            self._db.execute("DELETE FROM runs WHERE horizon = ? AND seed = ?", (horizon, seed))
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
                      "code_stamps": sorted({c["code_stamp"] for c, _ in used}),
                      "invocations": sorted({c["invocation"] for c, _ in used if c["invocation"] is not None})})

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

    def results(self, horizon: int | None = None, seed: int | None = None,
                reps: int | None = None) -> dict[str, SimulationResult]:
        """Every registered run (at ``horizon``/``seed``, see :meth:`run_configs`) with at least
        one stored repetition, merged: run key -> result.  Each run holds the repetitions of the
        latest definition that has it (``reps``: that many instead), never those another
        definition added beyond them; a run no definition names (a store of the previous
        format) holds every stored repetition from 0."""
        out = {}
        for key, config_id in self.run_configs(horizon, seed).items():
            wanted = reps if reps is not None else self._defined_reps(key, config_id)
            try:
                out[key] = self.load_result(config_id, wanted)
            except ValueError:
                if wanted is None:
                    continue
                have = int(np.argmin(np.append(self.coverage(config_id, wanted), False)))
                if have == 0:
                    continue
                out[key] = self.load_result(config_id, have)          # an interrupted run: what it has
        return out

    def _defined_reps(self, key: str, config_id: str) -> int | None:
        """The repetitions of the latest definition naming run ``key`` of ``config_id`` (None: none)."""
        if self.info.get("format") != str(FORMAT):
            return None
        row = self._db.execute(
            "SELECT d.reps FROM definitions d JOIN definition_runs m ON m.experiment = d.experiment AND "
            "m.horizon = d.horizon AND m.seed = d.seed AND m.reps = d.reps JOIN runs r ON r.run_key = m.run_key "
            "AND r.horizon = d.horizon AND r.seed = d.seed WHERE m.run_key = ? AND r.config_id = ? "
            "ORDER BY d.invocation DESC LIMIT 1", (key, config_id)).fetchone()
        return None if row is None else int(row[0])

    # ------------------------------------------------------------ helpers
    def _transaction(self):
        if self.readonly:
            raise StoreError(f"{self.path} is open read-only")
        return _Transaction(self)


class _Transaction:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (``ROLLBACK`` on any exception).  A write the disk or
    the file system refuses (full, read-only, I/O error, locked beyond the timeout) rolls back
    and raises :class:`StoreError` in one line: what is stored stays, and a rerun resumes."""

    def __init__(self, store):
        self.store = store
        self.db = store._db

    def __enter__(self):
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as err:
            raise self._refused(err) from None

    def __exit__(self, kind, value, tb):
        try:
            if kind is None:
                self.db.execute("COMMIT")
                return False
        except sqlite3.OperationalError as err:
            value = err
        if self.db.in_transaction:              # SQLite may have rolled back already (a full disk)
            self.db.execute("ROLLBACK")
        if isinstance(value, sqlite3.OperationalError):
            raise self._refused(value) from None
        return False

    def _refused(self, err) -> StoreError:
        return StoreError(f"cannot write to the result store {self.store.path} ({err}); nothing of this write "
                          "is kept and everything stored before is: free space or fix the folder, then rerun "
                          "the same command to resume")
