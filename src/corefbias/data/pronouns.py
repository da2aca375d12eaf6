"""The gendered third-person pronouns the test sets resolve, by language → grammatical gender."""

ENGLISH = {"he": "male", "him": "male", "his": "male", "she": "female", "her": "female", "hers": "female"}
DANISH = {"han": "male", "ham": "male", "hans": "male", "hun": "female", "hende": "female", "hendes": "female"}
