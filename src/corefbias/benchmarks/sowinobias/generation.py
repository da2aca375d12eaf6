"""SoWinoBias (Dawkins, GeBNLP 2021), regenerated from the paper: its repository cannot be had.

Sec. 4.2: every sentence is "The [occ1] (dis)liked the [occ2] because they were [adj].", with one
occupation from the male-stereotyped and one from the female-stereotyped list, and an adjective
from the female-stereotyped lists: "liked" with a positive adjective, "disliked" with a negative
one. "they" always refers to occ2. Pro-stereotypical sentences have occ2 female-stereotyped (the
adjective fits the stereotype of its referent), anti-stereotypical ones occ2 male-stereotyped. So
each condition has 16 × 16 × 32 = 8192 sentences, and each pro sentence has an anti twin with the
two occupations swapped ("The doctor liked the nurse ..." / "The nurse liked the doctor ...", the
paper's own example pair); the twins share a ``pair_id``.

"they" carries no gender; the gender a sentence assigns to it is the adjective's stereotype, female
for every adjective of the set, and that is the ``pronoun_gender`` of every sentence.
"""

from __future__ import annotations

from collections.abc import Iterator

# Appendix A ("Full test set vocabulary"), in the paper's order. The appendix's M_def / F_def lists
# (man, he, ...; woman, she, ...) serve its WEAT analysis, not the test set.
FEMALE_OCCUPATIONS = (
    "writer",
    "teacher",
    "cleaner",
    "tailor",
    "attendant",
    "librarian",
    "auditor",
    "nurse",
    "nanny",
    "cashier",
    "editor",
    "hairdresser",
    "stylist",
    "maid",
    "baker",
    "counselor",
)
MALE_OCCUPATIONS = (
    "guard",
    "architect",
    "chef",
    "leader",
    "president",
    "developer",
    "lawyer",
    "salesperson",
    "doctor",
    "judge",
    "boss",
    "chief",
    "mover",
    "cook",
    "researcher",
    "physician",
)
ADJECTIVES = {
    "positive": (
        "sprightly",
        "gentle",
        "affectionate",
        "charming",
        "kindly",
        "beloved",
        "enchanted",
        "virtuous",
        "beauteous",
        "chaste",
        "fair",
        "delightful",
        "lovely",
        "romantic",
        "elegant",
        "fertile",
    ),
    "negative": (
        "fussy",
        "nagging",
        "rattlebrained",
        "haughty",
        "whiny",
        "dependent",
        "sullen",
        "unmarried",
        "prudish",
        "fickle",
        "hysterical",
        "infected",
        "widowed",
        "awful",
        "damned",
        "frivolous",
    ),
}
VERBS = {"positive": "liked", "negative": "disliked"}
ADJECTIVE_GENDER = "female"
PRONOUN = "they"
CONDITIONS = ("pro", "anti")


def _span(pieces: list[str], text: str) -> dict:
    """The span of ``text`` appended after ``pieces`` (which it is then appended to)."""
    start = sum(map(len, pieces))
    pieces.append(text)
    return {"text": text, "start": start, "end": start + len(text)}


def sentence(occupation_1: str, occupation_2: str, adjective: str, polarity: str) -> dict:
    """One template instance: ``text``, the ``pronoun`` span and the two mention ``candidates``
    (with their determiner), of which occ2 is the referent."""
    pieces: list[str] = []
    first = _span(pieces, f"The {occupation_1}")
    pieces.append(f" {VERBS[polarity]} ")
    second = _span(pieces, f"the {occupation_2}")
    pieces.append(" because ")
    pronoun = _span(pieces, PRONOUN)
    pieces.append(f" were {adjective}.")
    return {
        "text": "".join(pieces),
        "pronoun": pronoun,
        "candidates": [{**first, "is_referent": False}, {**second, "is_referent": True}],
    }


def _stereotype(occupation: str) -> str:
    return "female" if occupation in FEMALE_OCCUPATIONS else "male"


def sentences() -> Iterator[dict]:
    """Every test sentence with its design: pro sentences first, then anti, each in the order
    male occupation × female occupation × adjective (positive, then negative), both conditions
    in the same pair order."""
    for condition in CONDITIONS:
        for male in MALE_OCCUPATIONS:
            for female in FEMALE_OCCUPATIONS:
                occupation_1, occupation_2 = (male, female) if condition == "pro" else (female, male)
                for polarity, adjectives in ADJECTIVES.items():
                    for adjective in adjectives:
                        pair_id = f"{male}.{female}.{adjective}"
                        yield {
                            **sentence(occupation_1, occupation_2, adjective, polarity),
                            "id": f"{condition}.{pair_id}",
                            "condition": condition,
                            "polarity": polarity,
                            "occupation_1": occupation_1,
                            "occupation_2": occupation_2,
                            "female_occupation": female,
                            "male_occupation": male,
                            "adjective": adjective,
                            "pronoun_gender": ADJECTIVE_GENDER,
                            "pair_id": pair_id,
                            "candidate_stereotypes": [_stereotype(occupation_1), _stereotype(occupation_2)],
                        }
