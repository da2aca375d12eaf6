"""DaWinoBias, the Danish WinoBias, as GenDa Lens scores it.

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
