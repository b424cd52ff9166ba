"""`ask`: the answerer behind the tool of that name and the OpenAI-compatible chat endpoint.

`reading.py` works out what a question asks, `compose.py` asks the tools and writes the answer from
templates, `model_path.py` lets a configured language model choose the tools and write instead.
"""

from garage_tools.tools.ask.models import AnswerKind, AskInput, AskOutput, Source
from garage_tools.tools.ask.tool import TOOL, ask

__all__ = ["TOOL", "AnswerKind", "AskInput", "AskOutput", "Source", "ask"]
