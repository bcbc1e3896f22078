"""What this peer's links carried (heartbeats and handshakes aside), for the figures."""

from __future__ import annotations

from tractor.net.mesh.relay import is_have


class Traffic:
    """Frames and bytes sent on up links: all of them, the relayed ones, the have reports."""

    def __init__(self) -> None:
        self.frames = self.bytes = 0  #: every frame sent on a link, relays and haves included
        self.relayed = self.relayed_bytes = 0  #: other seats' frames relayed
        self.haves = self.have_bytes = 0  #: have reports

    def count(self, frame: bytes) -> None:
        self.frames += 1
        self.bytes += len(frame)
        if is_have(frame):
            self.haves += 1
            self.have_bytes += len(frame)

    def as_dict(self) -> dict[str, int]:
        return dict(vars(self))
