"""One number format for every table, console line, chart label and report: three decimals, never float noise."""

from __future__ import annotations


def format_number(value) -> str:
    """A score as every table, console line and chart label prints it: three decimals; — for None.

    A difference of two equal scores can come out of floating point as -1.11e-16: it prints as 0.000, with no sign.

    Examples
    --------
    >>> [format_number(value) for value in (0.25, 1, 2 / 3, -1.11e-16, None)]
    ['0.250', '1', '0.667', '0.000', '—']
    """
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    text = f"{value:.3f}"
    return "0.000" if text == "-0.000" else text


def format_p_value(value) -> str:
    """A p-value as tables print it: three decimals, and < 0.001 for one that three decimals would show as 0.

    Examples
    --------
    >>> [format_p_value(value) for value in (0.0342, 3.87e-17, None)]
    ['0.034', '< 0.001', '—']
    """
    if value is not None and value < 0.0005:
        return "< 0.001"
    return format_number(value)
