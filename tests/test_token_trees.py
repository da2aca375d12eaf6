"""The prefix-tree layout's plan (``corefbias.models.token_trees``), on token ids drawn from a small alphabet so
that contexts and options share prefixes: every option token is read where its own context and option tokens
before it are exactly the token's ancestors, and the batches keep the budget."""

from fuzz_settings import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from corefbias.models.token_batches import distinct_tokens
from corefbias.models.token_trees import footprint, longest_sequence, pack, scored_count, tree_batches

TOKENS = st.integers(min_value=0, max_value=3)
ITEMS = st.lists(
    st.tuples(st.lists(TOKENS, min_size=1, max_size=8), st.lists(st.lists(TOKENS, min_size=1, max_size=4), min_size=1)),
    min_size=1,
    max_size=12,
)


def ancestors(rows, row: int, column: int) -> list[int]:
    """The columns ``column`` attends to in ``row``, by ``TreeRows.ends``."""
    return [j for j in range(column + 1) if column < rows.ends[row][j]]


@fuzz_settings(300)
@given(items=ITEMS, row_tokens=st.integers(min_value=1, max_value=24))
def test_every_option_token_is_read_after_exactly_its_context_and_the_option_tokens_before_it(items, row_tokens):
    rows = pack(items, row_tokens)
    assert all(len(tokens) <= rows.width for tokens in rows.tokens)
    assert rows.width == max(row_tokens, max(map(longest_sequence, items)))
    options = [(context, tokens) for context, choices in items for tokens in choices]
    read = {}
    for number, target, option in rows.targets:
        row, column = rows.positions[number]
        seen = ancestors(rows, row, column)
        assert [rows.depths[row][j] for j in seen] == list(range(len(seen)))  # positions 0, 1, 2, … along the path
        read.setdefault(option, []).append(([rows.tokens[row][j] for j in seen], target))
    assert sorted(read) == list(range(len(options)))
    for option, (context, tokens) in enumerate(options):
        expected = [(context + tokens[:step], tokens[step]) for step in range(len(tokens))]
        assert sorted(read[option]) == sorted(expected)


@fuzz_settings(200)
@given(items=ITEMS)
def test_a_wide_row_computes_each_shared_prefix_once(items):
    """In one row, sorted by context as ``tree_batches`` sorts them, no more tokens than the least any method
    computes (each distinct context prefix once, each option's tokens but its last)."""
    ordered = sorted(items, key=lambda item: item[0])
    rows = pack(ordered, row_tokens=10_000)
    assert len(rows.tokens) == 1
    assert len(rows.tokens[0]) <= distinct_tokens(ordered)


@fuzz_settings(200)
@given(
    items=ITEMS,
    budget=st.integers(min_value=1, max_value=60),
    row_tokens=st.integers(min_value=1, max_value=20),
    most_scored=st.integers(min_value=1, max_value=30),
)
def test_batches_hold_every_request_once_within_the_budget(items, budget, row_tokens, most_scored):
    batches = tree_batches(items, range(len(items)), budget, row_tokens, most_scored)
    assert sorted(index for batch in batches for index, _ in batch) == list(range(len(items)))
    for batch in batches:
        members = [items[index] for index, _ in batch]
        rows = pack(members, row_tokens)
        assert footprint(members, row_tokens) == len(rows.tokens) * rows.width  # the planner's count is the packing's
        if len(batch) > 1:
            assert len(rows.tokens) * rows.width <= budget
            assert sum(map(scored_count, members)) <= most_scored
            assert len(rows.positions) <= most_scored
