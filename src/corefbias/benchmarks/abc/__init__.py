"""ABC, the anti-reflexive test set (González et al., EMNLP 2020), as GenDa Lens scores its Danish part.

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
