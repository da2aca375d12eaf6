"""KnowRef (Emami et al., ACL 2019): real sentences whose pronoun's two candidates are names of one gender.

The set's folder: its builder, card, upstream pins, citation, reader and declaration.
"""
