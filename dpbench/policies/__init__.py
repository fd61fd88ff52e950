"""Bandit policies (engine components + catalog entries), one module per family: each registers
its policies (:func:`dpbench.register_algorithm`) when imported, and every module of this folder
is imported (:func:`dpbench.plugins.import_folder`)."""
from ..plugins import import_folder

import_folder(__name__)
