"""The three layouts of ``hf:``'s forward passes (``TransformersBackend``'s ``layout``), each declared once as a
``layout.Layout``: how it plans a call's requests in batches (``plan``), what a batch holds against the budget
(``footprint``) and how it scores one (``score``: one float32 log-likelihood per option, in order, on the model's
device).

* ``prefix-sharing`` (``PrefixSharing``): the first tokens that several contexts share computed once for them all.
* ``right-padded`` (``RightPadded``): whole contexts padded on the right, with no attention mask.
* ``prefix-tree`` (``PrefixTree``): each batch one pass over rows holding trees of the requests' tokens.

The first two continue each context's key/value cache over the tails of its options of more than one token
(``cached``). Plain planning, with no model and no torch, is ``token_batches``'s and ``token_trees``'s.
"""

from .attention_masks import own_mask_refusal
from .prefix_sharing import PrefixSharing
from .prefix_tree import PrefixTree
from .right_padded import RightPadded

BY_NAME = {layout.name: layout for layout in (PrefixSharing, RightPadded, PrefixTree)}

__all__ = ["BY_NAME", "PrefixSharing", "PrefixTree", "RightPadded", "own_mask_refusal"]
