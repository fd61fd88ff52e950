"""The mutation table (tests/mutations.toml) stays applicable: every entry's ``find`` occurs in
its file, so that a refactoring cannot turn an entry into a no-op that the score table
(reports/mutations.md) still counts as killed from an older run."""
import tomllib

from tests.run_mutations import ROOT, SPEC, variants


def test_every_mutation_finds_its_line():
    stale = [v.id for v in variants(tomllib.loads(SPEC.read_text())) if v.find not in (ROOT / v.file).read_text()]
    assert not stale, f"mutations whose line is gone (update find/replace in tests/mutations.toml): {stale}"
