"""Counter-GAP (Xie et al., EACL 2023).

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
