"""Masquerading for a lab router, without the nft or iptables commands (a fresh machine
has neither): the nf_tables rule ``table ip tractor-nat { chain post { type nat hook
postrouting priority 100; masquerade } }`` sent to the kernel over netlink, as `nft`
would send it.

Run inside the router's namespace (``ip netns exec ROUTER python3 tests/nat.py``): a
netlink socket talks to the namespace it was opened in. Only new connections reach a nat
chain, and the router forwards only its home's to the outside, so masquerading every one
that leaves is a home router's NAT: the outside sees the router's address, and nothing
outside can open a connection into the home.
"""

from __future__ import annotations

import errno
import socket
import struct
import sys

NETLINK_NETFILTER = 12
NFNL_SUBSYS_NFTABLES = 10
NFNL_MSG_BATCH_BEGIN, NFNL_MSG_BATCH_END = 0x10, 0x11
NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWRULE = 0, 3, 6
NLM_F_REQUEST, NLM_F_ACK, NLM_F_CREATE, NLM_F_APPEND = 0x1, 0x4, 0x400, 0x800
NLMSG_ERROR = 2
NLA_F_NESTED = 0x8000
AF_INET = 2
NF_INET_POST_ROUTING = 4
TABLE, CHAIN = b"tractor-nat\0", b"post\0"


def attr(kind: int, data: bytes) -> bytes:
    """A netlink attribute, padded to 4 bytes."""
    raw = struct.pack("=HH", 4 + len(data), kind) + data
    return raw + bytes(-len(raw) % 4)


def nested(kind: int, *parts: bytes) -> bytes:
    return attr(kind | NLA_F_NESTED, b"".join(parts))


def message(kind: int, flags: int, seq: int, body: bytes, res_id: int = 0) -> bytes:
    payload = struct.pack("=BBH", AF_INET, 0, socket.htons(res_id)) + body
    return struct.pack("=IHHII", 16 + len(payload), kind, flags, seq, 0) + payload


def masquerade_batch() -> bytes:
    new = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_ACK
    nft = NFNL_SUBSYS_NFTABLES << 8
    table = attr(1, TABLE)  # NFTA_TABLE_NAME
    chain = (attr(1, TABLE) + attr(3, CHAIN)  # NFTA_CHAIN_TABLE, NFTA_CHAIN_NAME
             + nested(4, attr(1, struct.pack(">I", NF_INET_POST_ROUTING)),  # hook number
                      attr(2, struct.pack(">i", 100)))  # NFTA_CHAIN_HOOK: priority
             + attr(7, b"nat\0"))  # NFTA_CHAIN_TYPE
    masq = nested(1, attr(1, b"masq\0"))  # NFTA_LIST_ELEM { NFTA_EXPR_NAME }
    rule = attr(1, TABLE) + attr(2, CHAIN) + nested(4, masq)  # NFTA_RULE_EXPRESSIONS
    return b"".join([
        message(NFNL_MSG_BATCH_BEGIN, NLM_F_REQUEST, 1, b"", NFNL_SUBSYS_NFTABLES),
        message(nft | NFT_MSG_NEWTABLE, new, 2, table),
        message(nft | NFT_MSG_NEWCHAIN, new, 3, chain),
        message(nft | NFT_MSG_NEWRULE, new | NLM_F_APPEND, 4, rule),
        message(NFNL_MSG_BATCH_END, NLM_F_REQUEST, 5, b"", NFNL_SUBSYS_NFTABLES),
    ])


def install() -> None:
    """Send the batch and read the three acknowledgements; raise on any error."""
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_NETFILTER) as s:
        s.bind((0, 0))
        s.settimeout(5)
        s.send(masquerade_batch())
        acked = 0
        while acked < 3:
            data = s.recv(65536)
            while data:
                length, kind = struct.unpack_from("=IH", data)
                if kind == NLMSG_ERROR:
                    (error,) = struct.unpack_from("=i", data, 16)
                    if error != 0:
                        raise OSError(-error, f"nf_tables refused the NAT rule: "
                                      f"{errno.errorcode.get(-error, error)}")
                    acked += 1
                data = data[(length + 3) & ~3:]


if __name__ == "__main__":
    try:
        install()
    except OSError as exc:
        print(f"nat: {exc}", file=sys.stderr)
        sys.exit(1)
