"""The keys of `portals/self` that real organizations answer beyond the ones orgctl reads
(REST JS's captured answer of a hosted-cloud organization is the reference, kept in
tests/fixtures/real_portals): clients read them without checking, so each is present
with its JSON type. The service holds no site settings, so they carry neutral values:
empty queries and lists, sharing and sign-in as an organization allows by default,
credits and quotas unbudgeted (-1)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from orgctl_service.accounts import default_admins
from orgctl_service.world import Doc

UNBUDGETED = -1
# The whole world in Web Mercator (wkid 102100), a new organization's default extent.
WORLD_EXTENT = {
    "type": "extent",
    "xmin": -20037508.342789244,
    "ymin": -15538711.096309224,
    "xmax": 20037508.342789244,
    "ymax": 15538711.096309224,
    "spatialReference": {"wkid": 102100},
}
_GROUP_QUERIES = (
    "analysisLayersGroupQuery",
    "basemapGalleryGroupQuery",
    "colorSetsGroupQuery",
    "featuredItemsGroupQuery",
    "galleryTemplatesGroupQuery",
    "layerTemplatesGroupQuery",
    "livingAtlasGroupQuery",
    "stylesGroupQuery",
    "symbolSetsGroupQuery",
    "templatesGroupQuery",
    "vectorBasemapGalleryGroupQuery",
)
_ALLOWED = ("canSearchPublic", "canSharePublic", "canSignInArcGIS", "supportsHostedServices")
_NOT_ALLOWED = (
    "canListApps",
    "canListData",
    "canListPreProvisionedItems",
    "canProvisionDirectPurchase",
    "canShareBingPublic",
    "canSignInIDP",
    "commentsEnabled",
    "eueiEnabled",
    "hasCategorySchema",
    "isHubEnabled",
    "metadataEditable",
    "mfaEnabled",
    "notificationsEnabled",
    "showHomePageDescription",
    "updateUserProfileDisabled",
    "useStandardizedQuery",
    "useVectorBasemaps",
)
_EMPTY_LISTS = (
    "allowedOrigins",
    "allowedRedirectUris",
    "authorizedCrossOriginDomains",
    "featuredGroups",
    "metadataFormats",
    "mfaAdmins",
    "rotatorPanels",
)
_EMPTY_OBJECTS = (
    "appInfo",
    "defaultBasemap",
    "helpMap",
    "portalProperties",
    "subscriptionInfo",
)


def portal_profile(portal: Doc, base_url: str) -> dict[str, Any]:
    """Every key of a real `portals/self` beyond the service's own, with a neutral value."""
    address = urlsplit(base_url)
    port = address.port or (443 if address.scheme == "https" else 80)
    admins = [user["username"] for user in default_admins(portal)]
    return {
        **{key: "" for key in _GROUP_QUERIES},
        **{key: True for key in _ALLOWED},
        **{key: False for key in _NOT_ALLOWED},
        **{key: [] for key in _EMPTY_LISTS},
        **{key: {} for key in _EMPTY_OBJECTS},
        "access": "private",
        "availableCredits": UNBUDGETED,
        "creditAssignments": "disabled",
        "culture": "en",
        "customBaseUrl": address.hostname or "",
        "databaseQuota": UNBUDGETED,
        "databaseUsage": UNBUDGETED,
        "defaultExtent": WORLD_EXTENT,
        "defaultUserCreditAssignment": UNBUDGETED,
        "defaultVectorBasemap": {"baseMapLayers": [], "title": ""},
        "description": "",
        "featuredGroupsId": "",
        "helpBase": "",
        "homePageFeaturedContent": "",
        "homePageFeaturedContentCount": 12,
        "ipCntryCode": "",
        "maxTokenExpirationMinutes": UNBUDGETED,
        "modified": portal["created"],
        "portalThumbnail": None,
        "region": "WO",
        "staticImagesUrl": "",
        "storageQuota": UNBUDGETED,
        "storageUsage": 0,
        "thumbnail": "",
        "units": "english",
        "httpPort": port if address.scheme == "http" else 80,
        "httpsPort": port if address.scheme == "https" else 443,
        "contacts": admins[:1],
    }
