"""The corefbias Space: run a coreference model on the gender-bias benchmarks, explore, compare, learn.

``python app.py`` serves on $GRADIO_SERVER_NAME (default 127.0.0.1), port $GRADIO_SERVER_PORT
(default 7860); runs and the leaderboard are kept under $COREFBIAS_SPACE_DATA (default ./space_data).
"""

from pathlib import Path

from corefbias.space.settings import SpaceSettings
from corefbias.space.ui import build_app, launch

HERE = Path(__file__).resolve().parent
# The metric cards: staged next to the app when published, else the repository's metrics/ folder.
CARDS = next((folder for folder in (HERE / "metric_cards", HERE.parents[1] / "metrics") if folder.is_dir()), None)

# The models visitors may run: the owner edits models.toml (or points $COREFBIAS_SPACE_MODELS elsewhere).
settings = SpaceSettings.from_env(cards_dir=CARDS, models_file=HERE / "models.toml")
demo = build_app(settings)

if __name__ == "__main__":
    launch(demo, settings)
