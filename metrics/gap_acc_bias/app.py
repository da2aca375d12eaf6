from pathlib import Path

import evaluate

from corefbias.widget import launch_metric_widget

launch_metric_widget(evaluate.load(str(Path(__file__).resolve().parent)))
