"""WinoPron (Gautam et al., CRAC 2024): Winogender's schemas repaired, in every pronoun set and grammatical case.

The set's folder: its builder, card, upstream pins, citation, readers, Explore view and declaration.
"""
