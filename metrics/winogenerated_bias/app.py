from pathlib import Path

import evaluate

from corefbias.hub.metric_widget import launch_metric_widget

# By file, not folder: a Space runs from /home/user/app, and evaluate.load(<folder>) wants <folder name>.py.
launch_metric_widget(evaluate.load(str(Path(__file__).resolve().with_name("winogenerated_bias.py"))))
