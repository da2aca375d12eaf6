"""How the Hypothesis properties draw their cases."""

from hypothesis import HealthCheck, settings


def fuzz_settings(examples: int, *, explore: bool = False):
    """``examples`` cases per property. The default run draws the same examples every time, so that it passes or
    fails alike for everyone; the slow variants (``explore``) draw new ones on every run. No example database is
    written into the checkout."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=not explore,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
