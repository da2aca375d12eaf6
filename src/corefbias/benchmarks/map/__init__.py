"""MAP, the Maybe Ambiguous Pronoun set (Cao & Daumé, ACL 2020): GAP-style snippets with gender cues ablated.

The set's folder: its builder, card, citation, reader, Explore view and declaration; its upstream file is pinned
by GICoref's folder (one upstream repository holds both).
"""
