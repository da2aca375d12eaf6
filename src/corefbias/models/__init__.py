"""Coreference models behind one small protocol, named by spec strings (see ``registry``)."""
