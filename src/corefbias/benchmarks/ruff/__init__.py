"""RUFF (Gautam et al., TACL 2024): robust pronoun fidelity — does a model keep to the pronoun a person was
introduced with when zero to five sentences about someone else intervene?

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
