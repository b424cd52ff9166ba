"""`requestService`: a homeowner asks a local pro to come out (see tool.py)."""

from __future__ import annotations

from garage_tools.tools.service_request.models import RequestServiceInput, RequestServiceOutput
from garage_tools.tools.service_request.tool import TOOL

__all__ = ["TOOL", "RequestServiceInput", "RequestServiceOutput"]
