"""Where phones find the scoresheet: the LAN addresses, the .local name and the QR code."""

import cv2
import numpy as np

from companion.cli import join_text
from web.addresses import local_only, phone_urls, qr_svg, qr_text

PI = {"127.0.0.1", "192.168.1.40", "10.0.0.7", "169.254.3.3", "::1", "fe80::1", "8.8.4.4"}


def test_a_server_on_every_interface_is_found_at_its_lan_addresses_then_its_local_name():
    assert phone_urls("0.0.0.0", 8000, PI, "tightrope") == [
        "http://10.0.0.7:8000/", "http://192.168.1.40:8000/", "http://tightrope.local:8000/"]


def test_loopback_and_a_named_address_are_said_as_they_are():
    assert phone_urls("127.0.0.1", 8123, PI, "tightrope") == ["http://127.0.0.1:8123/"]
    assert phone_urls("192.168.1.40", 80, PI, "tightrope") == ["http://192.168.1.40:80/"]
    assert phone_urls("::1", 80, PI, "pi") == ["http://[::1]:80/"]
    assert local_only("http://127.0.0.1:8123/") and local_only("http://[::1]:80/")
    assert not local_only("http://tightrope.local:8000/")


def test_a_machine_with_no_network_still_has_an_address():
    assert phone_urls("0.0.0.0", 8000, {"127.0.0.1"}, "localhost") == ["http://127.0.0.1:8000/"]


def decode_blocks(text: str) -> str:
    """Read a terminal QR code back (upper/lower half blocks: two modules per character)."""
    top = {"█": (1, 1), "▀": (1, 0), "▄": (0, 1), " ": (0, 0)}
    rows: list[list[int]] = []
    for line in text.splitlines():
        pairs = [top[c] for c in line]
        rows += [[p[0] for p in pairs], [p[1] for p in pairs]]
    light = np.array(rows, np.uint8) * 255  # segno draws the light modules as blocks
    image = cv2.resize(light, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    image = cv2.copyMakeBorder(image, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    found, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return found


def test_the_terminal_qr_code_reads_back_as_the_address():
    assert decode_blocks(qr_text("http://192.168.1.40:8000/")) == "http://192.168.1.40:8000/"


def test_run_prints_every_address_and_the_code_only_where_a_phone_can_use_it():
    urls = ["http://192.168.1.40:8000/", "http://tightrope.local:8000/"]
    text = join_text(urls, qr=True)
    assert text.splitlines()[:2] == ["scoresheet on http://192.168.1.40:8000/",
                                     "          or http://tightrope.local:8000/"]
    assert "▀" in text
    assert "▀" not in join_text(urls, qr=False)
    local = join_text(["http://127.0.0.1:8000/"], qr=True)
    assert "this machine only" in local and "▀" not in local


def test_the_svg_code_scales_with_the_page():
    svg = qr_svg("http://192.168.1.40:8000/")
    assert svg.startswith("<svg viewBox=") and "width=" not in svg.split(">")[0]
    assert "http://192.168.1.40:8000/" in svg
