"""`identifyOpener`: the tool, and the offline colour check it falls back on without a vision model."""

from garage_tools.tools.opener.tool import TOOL

__all__ = ["TOOL"]
