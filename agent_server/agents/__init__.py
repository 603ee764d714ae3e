"""Agent profiles and modes: named agents with their own prompt, tools, model, permissions and limits."""

from .loader import Catalog, ProfileError, load_catalog, parse_profile
from .profile import PermissionRule, Profile, ProfileSpec

__all__ = ["Catalog", "PermissionRule", "Profile", "ProfileError", "ProfileSpec", "load_catalog", "parse_profile"]
