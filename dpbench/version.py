"""The package's version number (pyproject.toml's, read from the installed metadata) and the git
commit of the sources, for the provenance of reports and tables.

A module of its own at the bottom of the layers, so that the engine (result metadata,
throughput tables) and the command line read it without importing the package's
``__init__`` (which imports the engine back).
"""
from importlib import metadata as _metadata
from pathlib import Path

try:
    __version__ = _metadata.version("dpbench")
except _metadata.PackageNotFoundError:      # a source tree that was never installed
    __version__ = "0+unknown"


def git_commit() -> str:
    """The git commit of the dpbench sources (marked if they differ from it), or 'not a git checkout'."""
    import subprocess
    here = Path(__file__).resolve().parent            # dpbench/
    try:
        # the repository must track these sources: an installed copy (site-packages) inside another
        # repository (a virtual environment in a user's project, pyenv's own checkout) would
        # otherwise be stamped with that repository's commit
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", Path(__file__).name], cwd=here,
                                 capture_output=True, text=True, timeout=10)
        if tracked.returncode != 0:
            return "not a git checkout"
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return "not a git checkout"
        # the sources only: a build writes its own reports and the timing tables of the guides (and
        # the next report of `report all` must not call the commit of the code it runs "uncommitted"
        # because of them)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "dpbench", "verify",
                                "pyproject.toml", ":(exclude)dpbench/guides"],
                               cwd=here.parent, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "not a git checkout"
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")
