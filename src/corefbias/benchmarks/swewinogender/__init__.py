"""SweWinogender v2.0 (Hansson et al., NoDaLiDa 2021; SuperLim 2.0): Swedish Winogender with han, hon and hen.

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
