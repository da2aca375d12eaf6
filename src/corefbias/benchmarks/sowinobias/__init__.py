"""SoWinoBias (Dawkins, GeBNLP 2021).

The set's folder: its builder, card, upstream pins, citation, readers and declaration.
"""
