"""Running an upstream scoring script's own functions without running the script.

The MISGENDERED and RUFF scripts parse command-line arguments, load a model onto a GPU and loop over files when
they are imported. ``functions`` executes only their imports, the module-level assignments named, and their
function definitions, from the mirrored file at the pinned commit, so that a test calls upstream's own code on
the same inputs as corefbias's.
"""

from __future__ import annotations

import ast
from pathlib import Path


def functions(path: Path, assignments: tuple[str, ...] = (), **injected) -> dict:
    """The namespace of ``path``'s imports, the assignments to the names in ``assignments`` (in file order) and its
    function definitions, with ``injected`` names set first (what the skipped statements would have made).

    Examples
    --------
    >>> import tempfile
    >>> script = Path(tempfile.mkdtemp()) / "s.py"
    >>> _ = script.write_text("import re\\nx = 2\\ny = load()\\ndef twice(v):\\n    return v * x\\nmain()\\n")
    >>> functions(script, ("x",))["twice"](3)
    6
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

    def kept(node: ast.stmt) -> bool:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef)):
            return True
        if isinstance(node, ast.Assign):
            names = {
                target.id if isinstance(target, ast.Name) else getattr(target.value, "id", None)
                for target in node.targets
            }
            return bool(names & set(assignments))
        return False

    module = ast.Module(body=[node for node in tree.body if kept(node)], type_ignores=[])
    namespace = {"__name__": f"upstream_{path.stem}", **injected}
    exec(compile(module, str(path), "exec"), namespace)  # noqa: S102 — upstream's own code, from the pinned mirror
    return namespace
