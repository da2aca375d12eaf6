"""How the ``corefbias`` command reads its options: a parser whose errors are one line, and types that refuse a
number out of range before anything runs."""

from __future__ import annotations

import argparse
import sys


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line and exit status 2, pointing to ``--help`` instead of
    printing the usage (the ``run`` command's is a screenful)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")

    def exit(self, status: int = 0, message: str | None = None):
        if message:
            sys.stderr.write(message)
        raise SystemExit(status)


def whole_number(low: int, high: int | None = None):
    """An argparse type: an integer from ``low`` to ``high`` (None: no bound).

    Examples
    --------
    >>> whole_number(1)("3")
    3
    >>> whole_number(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number of at least 1, got '0'
    """
    bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected a whole number {bounds}, got {text!r}")
        return value

    return parse


def number(low: float, *, inclusive: bool = True):
    """An argparse type: a finite number of at least ``low`` (above it, with ``inclusive=False``).

    Examples
    --------
    >>> number(0, inclusive=False)("0.5")
    0.5
    >>> number(0)("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number of at least 0, got 'nan'
    """
    bound = f"of at least {low:g}" if inclusive else f"above {low:g}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not (value >= low if inclusive else value > low) or value == float("inf"):
            raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}")
        return value

    return parse
