"""GAP (Webster et al., TACL 2018) with the LP weights of GAP on GAP (Kocijan et al., AAAI 2021).

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
