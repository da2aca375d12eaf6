"""Winogender schemas (Rudinger et al., NAACL 2018).

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
