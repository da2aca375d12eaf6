"""corefbias: gender-bias measures for coreference resolution, reproducing the papers that
defined them (Counter-GAP, GAP on GAP, Winogender, WinoBias/SoWinoBias, GenDa Lens)."""

__version__ = "0.1.0"
