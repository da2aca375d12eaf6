"""WinoNB (Baumler & Rudinger, NAACL 2022): is singular *they* told apart from plural *they*?

The set's folder: its builder, card, upstream pins, citation, reader, Explore view and declaration.
"""
