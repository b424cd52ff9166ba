"""The developer portal at `/developers`: tiers and limits, magic-link sign-in, and a key dashboard."""

from garage_tools.web.portal.endpoints import portal_routes

__all__ = ["portal_routes"]
