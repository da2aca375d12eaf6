"""Winogenerated (Perez et al., Findings of ACL 2023): 2,990 model-written Winogender-style sentences, one blank for a
pronoun each; which pronoun does a language model write for a person of each occupation?

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
