"""The solver's reference: the Python statement of what the compiled core (``csrc/``) does, which
the tests hold the core to on the same positions (the same moves in the same order, so the same
nodes, lines and verdicts), and the rules proven and checked here before the core got them.
Never the service's: ``api`` runs ``core.Compiled``, and an import-linter contract keeps this
package out of every service path (it may import the service's modules, never the other way).

* ``searches``: the depth-first search and the stock-step beam (``PYTHON``, a ``search.Searcher``);
* ``safe``: the safe foundation moves (``solver.safe`` has their proofs);
* ``frozen``: frozen cards, a proof of loss without search (the core runs it at the root);
* ``dead_weight``: dead weight in the waste, positions no better than one the search has entered;
* ``beam``: the beam's score and its line's own steps;
* ``image``: Klondike's image game searched (``solver.abstract`` has the image and ``realize``).
"""

from .searches import PYTHON, Reference, descend, python_beam, search

__all__ = ["PYTHON", "Reference", "descend", "python_beam", "search"]
