"""Counter-GAP's instance ids (C-GAP.tsv and the published outputs): ``<quadruple>`` for the original,
``<quadruple>-control``, ``<quadruple>-swap-1`` and ``<quadruple>-swap-2`` for its three variants."""

_ROLE_SUFFIXES = (("-control", "gender_controlled"), ("-swap-1", "gender_swapped_1"), ("-swap-2", "gender_swapped_2"))


def role_of(instance_id: str) -> str:
    """The instance's role in its quadruple (``measures.counter_gap_delta_i.ROLES``)."""
    for suffix, role in _ROLE_SUFFIXES:
        if instance_id.endswith(suffix):
            return role
    return "original"


def quadruple_of(instance_id: str) -> str:
    """The id of the instance's quadruple: the original's id."""
    return instance_id.split("-")[0]
