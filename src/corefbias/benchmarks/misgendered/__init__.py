"""MISGENDERED (Hossain, Dev and Singh, ACL 2023): does a language model use the pronouns a person declared?

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
