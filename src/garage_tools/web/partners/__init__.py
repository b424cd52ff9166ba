"""The partner console at `/partners`: magic-link sign-in for partners' addresses, their leads, profile and
promotions."""

from garage_tools.web.partners.endpoints import partner_routes

__all__ = ["partner_routes"]
