"""`submitInspection` and the 24-point inspection report: scoring, storage, e-mail and the next step."""

from garage_tools.tools.inspection.tool import TOOL

__all__ = ["TOOL"]
