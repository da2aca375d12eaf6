"""The numbers with the newest releases. ``scripts/test`` installs the releases the suite last passed with
(``constraints.txt``), so that a fresh machine reproduces CI; this test runs, in the virtualenv that holds the released
wheel with whatever releases the package registry holds today (``installed.user_venv``, no constraints), the tests that
compare our numbers with stored values, published tables and the authors' own scorers. A stored figure that moves
beyond its stated tolerance there is a finding about a new release, not a flaky test.
"""

import re
import subprocess

import pytest
from installed import REPO, _check

pytestmark = pytest.mark.slow

# Every test of these files runs, the reproductions included; none needs torch (whose newest release on PyPI is a
# CUDA build of gigabytes), a browser or a service.
NUMERIC_TESTS = (
    "test_result_versions.py",
    "test_counter_gap_reproduction.py",
    "test_gap_on_gap.py",
    "test_weighting.py",
    "test_dataset_gap.py",
    "test_score.py",
    "test_genda_lens_dawinobias.py",
    "test_bug_evaluate_coref.py",
    "test_winopron_converters.py",
    "test_pro_anti_diff.py",
    "test_winogender_bias.py",
    "test_pronoun_set_diff.py",
    "test_conll_f1.py",
    "test_gicoref.py",
    "test_resampling.py",
    "test_metric_common.py",
)
WATCHED = ("numpy", "scipy", "pandas", "datasets", "evaluate", "scikit-learn", "scorch")


def _pinned(name: str) -> str | None:
    text = (REPO / "constraints.txt").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(name)}==(\S+)$", text, re.MULTILINE | re.IGNORECASE)
    return found[1] if found else None


def test_the_numbers_hold_with_the_newest_releases(user_venv, mirror):
    env = {**user_venv.env, "COREFBIAS_MIRROR": str(mirror)}
    installed = dict(
        line.split("==", 1)
        for line in _check([user_venv.python, "-m", "pip", "freeze"], env=env).stdout.splitlines()
        if "==" in line
    )
    for name in WATCHED:
        print(f"{name} {installed.get(name)} (constraints.txt: {_pinned(name)})")
    done = subprocess.run(
        [user_venv.python, "-m", "pytest", "-q", "-m", "not slow", "-p", "no:cacheprovider",
         *(f"tests/{name}" for name in NUMERIC_TESTS)],
        cwd=REPO, env=env, capture_output=True, text=True,
    )  # fmt: skip
    print(done.stdout[-2000:])
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout.splitlines()[-1] and " skipped" not in done.stdout.splitlines()[-1]
