"""How the `openai` client reaches its endpoint: an endpoint on this machine (localhost,
127.0.0.0/8, ::1) never through a proxy.

The client honours HTTP_PROXY / HTTPS_PROXY / ALL_PROXY from the environment, and it lets
NO_PROXY exempt hosts but exempts none on its own. Cluster nodes and corporate machines
often set a proxy and not NO_PROXY, and a proxy cannot reach a server on this machine's
loopback: every request to a local vLLM or `transformers serve` failed (the proxy's 403 or
a refused connection), as if the server were down. Go's net/http makes the same exception.
Any other host is routed as the environment says (NO_PROXY for cluster-internal servers).
"""

from __future__ import annotations

import ipaddress
import os
import urllib.request
from typing import Any
from urllib.parse import urlsplit

__all__ = ["is_loopback", "client_options", "proxy_hint"]


def is_loopback(base_url: str) -> bool:
    """Whether `base_url` names this machine: `localhost` or a loopback address."""
    host = (urlsplit(base_url).hostname or "").rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # a host name
        return False
    # 0.0.0.0 (the address servers print when they listen on all interfaces) connects here too.
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return ip.is_loopback or ip.is_unspecified or bool(mapped and (mapped.is_loopback or mapped.is_unspecified))


def client_options(openai: Any, base_url: str, timeout: float) -> dict[str, Any]:
    """Extra keyword arguments of `openai.OpenAI(...)` for `base_url`: for a loopback endpoint,
    an HTTP client whose route to that host bypasses any proxy of the environment (the rest of
    the environment, CA certificates included, still applies); else none."""
    if not is_loopback(base_url):
        return {}
    host = urlsplit(base_url).hostname or ""
    pattern = f"all://[{host}]" if ":" in host else f"all://{host}"
    # A mount to None: the client's own direct transport for that host (httpx's NO_PROXY form).
    return {"http_client": openai.DefaultHttpxClient(timeout=timeout, mounts={pattern: None})}


def proxy_hint(base_url: str) -> str:
    """The question an unreachable `base_url` ends with when the environment sets a proxy for
    it (a server on the user's network behind a proxy fails as if it were down), else "".
    Names the variable, never its value (a proxy URL may hold a password)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if not host or is_loopback(base_url):
        return ""
    names = {"http": ("http_proxy", "all_proxy"), "https": ("https_proxy", "all_proxy")}.get(parts.scheme.lower(), ())
    found = next((v for name in names for v in (name, name.upper()) if os.environ.get(v, "").strip()), "")
    if not found or urllib.request.proxy_bypass_environment(host):  # unset, or exempted by NO_PROXY
        return ""
    # urllib's reading of NO_PROXY, not the client's (httpx also takes CIDR ranges and
    # host:port): hence "unless NO_PROXY exempts it already", not a claim.
    return (f"is the server running there? The environment sets a proxy (${found}); if the server is on "
            f"your network and NO_PROXY does not exempt it already, set NO_PROXY={host}")
