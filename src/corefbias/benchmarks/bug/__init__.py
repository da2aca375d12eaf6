"""BUG (Levy et al., Findings of EMNLP 2021): real-world sentences linking a profession to a gendered pronoun.

The set's folder: its builder, card, upstream pins, citation, readers, Explore view and declaration.
"""
