"""Everything about the package is declared in setup.cfg; this file only derives, from its ``url``, the
project URLs and a long description (README.md) whose relative links point at the forge, as on PyPI."""

import configparser
import re
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
_config = configparser.ConfigParser()
_config.read(HERE / "setup.cfg", encoding="utf-8")
HOME = _config["metadata"]["url"].rstrip("/")
# A Markdown link or image target that names no scheme and is no in-page anchor: relative to the repository.
_RELATIVE_TARGET = re.compile(r"(!?\[[^\]]*\]\()(?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)", re.IGNORECASE)


def absolute_links(markdown: str, home: str = HOME) -> str:
    """``markdown`` with each relative link aimed at the file on the default branch (images at its raw bytes)."""

    def aim(match: re.Match) -> str:
        kind = "raw" if match[1].startswith("!") else "blob"
        return f"{match[1]}{home}/{kind}/main/{match[2]})"

    return _RELATIVE_TARGET.sub(aim, markdown)


setup(
    long_description=absolute_links((HERE / "README.md").read_text(encoding="utf-8")),
    long_description_content_type="text/markdown",
    project_urls={
        "Homepage": HOME,
        "Source": HOME,
        "Issues": f"{HOME}/issues",
        "Changelog": f"{HOME}/blob/main/CHANGELOG.md",
    },
)
