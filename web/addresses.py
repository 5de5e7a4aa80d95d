"""Where the players' phones find the scoresheet: this Pi's LAN addresses and its .local name,
as URLs, and a QR code of the one a phone is likeliest to reach."""

from __future__ import annotations

import ipaddress
import socket

from .hosts import interface_addresses

EVERYWHERE = {"0.0.0.0", "::", ""}


def phone_urls(host: str, port: int, addresses: set[str] | None = None,
               hostname: str | None = None) -> list[str]:
    """The URLs a phone on the LAN opens, best first: each private IPv4 address of this machine
    (every phone reaches those; mDNS names fail on some Android phones), then `hostname.local`.
    A server bound to loopback is reachable from this machine only: its one URL says so."""
    if host not in EVERYWHERE:
        shown = f"[{host}]" if ":" in host else host
        return [f"http://{shown}:{port}/"]
    found = interface_addresses() if addresses is None else addresses
    lan = sorted((a for a in found if _lan_v4(a)), key=ipaddress.ip_address)
    name = (hostname or socket.gethostname()).split(".")[0].lower()
    urls = [f"http://{a}:{port}/" for a in lan]
    if name and name != "localhost":
        urls.append(f"http://{name}.local:{port}/")
    return urls or [f"http://127.0.0.1:{port}/"]


def local_only(url: str) -> bool:
    """Whether a URL only opens on this machine (a phone cannot reach it)."""
    host = url.split("//", 1)[1].rsplit(":", 1)[0].strip("[]")
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _lan_v4(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.version == 4 and ip.is_private and not (ip.is_loopback or ip.is_link_local)


def qr_svg(url: str) -> str:
    """An inline SVG QR code of `url` (drawn here: no CDN, the table may have no internet)."""
    import segno

    return segno.make(url, error="m").svg_inline(omitsize=True, dark="#111", light="#fff",
                                                 title=f"QR code: {url}")


def qr_text(url: str) -> str:
    """The QR code of `url` in block characters, for a terminal."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()
