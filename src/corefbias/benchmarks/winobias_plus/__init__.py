"""WinoBias+ (Vanmassenhove, Emmery and Shterionov, EMNLP 2021): WinoBias sentences and their gender-neutral rewrites.

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
