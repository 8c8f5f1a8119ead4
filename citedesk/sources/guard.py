"""The network guard: which links may be fetched, and the connection that checks where it goes.

A document must not be able to probe the writer's network. So a link is fetched only when it is
http(s) and parses as httpx will send it (`parse_link`; a malformed link is reported, never raised
through the audit), and its host is checked where the connection is opened (`_GuardedBackend`):
each host name is resolved once, every address is checked (`is_private`: loopback, private,
link-local, shared, reserved, and IPv6 addresses carrying one of those), and the socket connects to
exactly the checked address — so a name whose DNS answer changes between a check and the
connection (DNS rebinding) never gets a byte sent to a private address. TLS still checks the
certificate against the host name. `fetch.py` is the only user.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Iterable
from urllib.parse import SplitResult, urlsplit

import httpcore
import httpx

from citedesk.errors import InputError, NetworkError


class _Blocked(NetworkError):
    """A link the guard refuses (a scheme other than http(s), a private address)."""


class InvalidLink(InputError):
    """A link that is not a valid web address; the message says why, for the writer."""


class _RefusedAddress(httpcore.ConnectError, NetworkError):
    """Raised by the guarded backend before connecting to a private address (see `_failure`); an
    httpcore error first, so httpx maps it to its own `ConnectError` as any failed connection."""


class _HostNotFound(httpcore.ConnectError, NetworkError):
    """The host name does not resolve (an httpcore error first, as `_RefusedAddress`)."""


_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)")


def is_private(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Anything but the public internet: private, loopback, link-local, reserved, multicast,
    unspecified, shared (100.64/10, carrier-grade NAT and VPN meshes) or otherwise not global; an
    IPv6 address that carries an IPv4 one (mapped, 6to4) is judged by that one too (NAT64's
    64:ff9b::/96 lies in reserved space, so it is refused whole)."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None and is_private(embedded):
            return True
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
    return (
        address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_multicast
        or address.is_unspecified
        or not address.is_global
    )


def parse_link(url: str) -> httpx.URL:
    """The link as it will be requested, or InvalidLink saying, in plain words, what is wrong with it.

    Everything that would make urllib or httpx raise later — an unclosed IPv6 bracket, a port that
    is not a number from 0 to 65535, a host that is no internet name (spaces, full-width letters,
    empty labels, a bad punycode label) — is found here, once, for the reference that holds it.
    """
    parts = _split(url)
    try:
        parts.port  # noqa: B018 - urllib checks the port only when asked
    except ValueError as exc:
        raise InvalidLink(f"the port in {parts.netloc} is not a number from 0 to 65535") from exc
    if not parts.hostname:
        raise InvalidLink("it has no host name")
    try:
        parsed = httpx.URL(url)
        shown = parsed.host  # decodes punycode labels: a bad one (`xn--zz`) raises here, not later
    except (httpx.InvalidURL, ValueError) as exc:  # idna.IDNAError and UnicodeError are ValueErrors
        raise InvalidLink(f"the host name {parts.hostname!r} is not a valid internet name") from exc
    if not _valid_host(parsed.raw_host.decode("ascii", "replace")):
        raise InvalidLink(f"the host name {shown!r} is not a valid internet name")
    return parsed


def _split(url: str) -> SplitResult:
    try:
        return urlsplit(url)
    except ValueError as exc:
        if "IPv6" in str(exc):
            raise InvalidLink("its IPv6 address is not closed with ']'") from exc
        raise InvalidLink(str(exc)) from exc


def _valid_host(host: str) -> bool:
    """An IP address, or a name of letters, digits, hyphens (and underscores, which some hosts use)
    in dot-separated labels of 1 to 63 characters: what DNS can look up."""
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return True
    name = host.removesuffix(".")
    if not name or len(name) > 253:
        return False
    labels = name.split(".")
    return all(_HOST_LABEL.fullmatch(label) for label in labels) and not labels[-1].isdigit()


def check_url(url: str) -> httpx.URL:
    """The link to request: raises _Blocked for a scheme other than http(s), InvalidLink for a
    malformed link. Addresses are checked when the connection opens (`_GuardedBackend`)."""
    scheme = _split(url).scheme
    if scheme.lower() not in ("http", "https"):
        raise _Blocked(f"only http and https links are fetched, not {scheme or 'this'}: links")
    return parse_link(url)


class _GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, resolving each host once and connecting only to checked addresses.

    The addresses getaddrinfo gives are all checked (a name with one private address among public
    ones is refused) and the socket connects to one of exactly those addresses, by number, so no
    second lookup can answer differently. TLS still names the host (SNI and certificate checks use
    the name from the URL, as does the Host header): only the lookup is done here.
    """

    def __init__(self, *, allow_private_network: bool) -> None:
        self.allow_private_network = allow_private_network

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = self.resolve(host, port)
        if not self.allow_private_network:
            for address in addresses:
                if is_private(ipaddress.ip_address(address)):
                    raise _RefusedAddress(
                        f"{host} is on a private or local network ({address}); "
                        "allow private addresses to fetch it"
                    )
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None  # resolve() never returns an empty list
        raise failure

    @staticmethod
    def resolve(host: str, port: int) -> list[str]:
        """The host's addresses, in the resolver's order, each once (an IP address is itself)."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise _HostNotFound(f"the host name {host} could not be found") from exc
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        if not addresses:
            raise _HostNotFound(f"the host name {host} could not be found")
        return addresses


class _GuardedTransport(httpx.HTTPTransport):
    """httpx's own transport on the guarded backend.

    httpx 0.28 takes no network backend (encode/httpx#3749 proposes one), so the connection pool
    it builds is replaced by the same pool built on `_GuardedBackend`; requests, responses and the
    mapping of httpcore's errors to httpx's stay httpx's own.
    """

    def __init__(self, backend: _GuardedBackend, limits: httpx.Limits) -> None:
        context = httpx.create_ssl_context(trust_env=False)  # loading the CA bundle costs ~20 ms: once
        super().__init__(verify=context, limits=limits, trust_env=False)
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )
