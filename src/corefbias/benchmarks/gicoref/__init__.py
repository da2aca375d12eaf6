"""GICoref (Cao & Daumé, ACL 2020): coreference in whole documents by and about trans and non-binary people.

The set's folder: its builder, card, upstream pins, citation, reader, mention types and declaration.
"""
