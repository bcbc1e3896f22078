"""The linear shuffle proof on its own (tractor.net.deck.shuffle_proof): honest shuffles verify,
every way of shuffling wrongly is refused, every part of the proof is bound, the challenges
cover the whole statement, a known-answer vector, and property tests on small decks
(hypothesis, derandomized). The engine-level cheats are in test_deck_cheats.py."""

from __future__ import annotations

import dataclasses
import hashlib

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tractor.net.deck import lock_proof
from tractor.net.deck import shuffle_proof as sp
from tractor.net.deck.group import (
    OPS,
    L,
    SecretStream,
    add,
    base,
    inv,
    mul,
    point_from_hash,
    scalar_from,
    smul,
)
from tractor.net.deck.shuffling import shuffle_context

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
TABLE = b"proof-table-0001"
TORSION8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
IDENTITY = (1).to_bytes(32, "little")
POINT_FIELDS = ["c_a", "c_b", "c_p", "d_d", "d_p", "t_1", "t_0", "a_y", "b_k"]
SCALAR_FIELDS = ["s_d", "s_p", "s_t", "z_k"]
FIELDS = [f.name for f in dataclasses.fields(sp.ShuffleProof)]


def cards(n: int, tag: bytes = b"card") -> list[bytes]:
    return [point_from_hash(tag, i.to_bytes(2, "little")) for i in range(n)]


@dataclasses.dataclass
class Case:
    """One honest shuffle of ``n`` card points and its proof."""

    n: int
    seed: int = 1
    seat: int = 1

    def __post_init__(self) -> None:
        self.secrets = SecretStream(bytes([self.seed % 256, self.n % 256]) * 16)
        self.inputs = cards(self.n)
        self.k = self.secrets.scalar("k")
        self.perm = self.secrets.permutation(self.n, "perm")
        self.outputs, self.key = sp.shuffle(self.inputs, self.k, self.perm)
        self.context = shuffle_context(TABLE, 3, self.seat, self.seat)
        self.proof = sp.prove(self.context, self.inputs, self.outputs, self.key, self.k,
                              self.perm, self.secrets, "test")

    def verify(self, proof: sp.ShuffleProof | None = None, outputs: list[bytes] | None = None,
               key: bytes | None = None, context: bytes | None = None,
               inputs: list[bytes] | None = None) -> None:
        sp.verify(self.context if context is None else context,
                  self.inputs if inputs is None else inputs,
                  self.outputs if outputs is None else outputs,
                  self.key if key is None else key, self.proof if proof is None else proof)

    def refused(self, **changes: object) -> None:
        with pytest.raises(sp.ShuffleProofError):
            self.verify(**changes)  # type: ignore[arg-type]

    def reproved(self, outputs: list[bytes], key: bytes | None = None) -> sp.ShuffleProof:
        """The prover's proof made, with its real k and permutation, for a false output."""
        return sp.prove(self.context, self.inputs, outputs, key or self.key, self.k, self.perm,
                        self.secrets, "cheat")


def other_scalar(label: bytes) -> bytes:
    return scalar_from(label.ljust(64, b"."))


@pytest.fixture(scope="module")
def case() -> Case:
    return Case(20)


# --- completeness and cost ----------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 8, 54, 108])
def test_honest_shuffle_verifies(n: int) -> None:
    Case(n).verify()


def test_cost_is_linear_in_the_cards() -> None:
    """Scalar multiplications: 6N + 11 to shuffle and prove (the shuffle itself N + 1), 3N + 11
    to verify, counted by the group module; 9 points and 2N + 4 scalars of proof. (A seed
    of its own: a statement verified before in this process is not verified again.)"""
    for n in (20, 108):
        before = OPS.total()
        c = Case(n, seed=99)
        proved = OPS.total() - before
        c.verify()
        verified = OPS.total() - before - proved
        assert (proved, verified) == (6 * n + 11, 3 * n + 11), n
        packed = c.proof.pack()
        assert len(packed) == 15 and len(packed[-1]) == len(packed[-2]) == n
        assert len(msgpack.packb(packed)) < (9 + 2 * n + 4) * 35


def test_a_proof_verified_once_in_a_process_is_not_verified_again() -> None:
    """Several seats in one process get each proof once per seat: the second verification
    of the same bytes does no arithmetic; a proof it refused is refused again, in full."""
    c = Case(12, seed=98)
    before = OPS.total()
    c.verify()
    assert OPS.total() - before == 3 * 12 + 11
    before = OPS.total()
    c.verify()
    c.verify(sp.ShuffleProof.unpack(c.proof.pack(), c.n))  # equal bytes, another object
    assert OPS.total() == before
    out = list(c.outputs)
    out[0], out[1] = out[1], out[0]
    for _ in range(2):
        before = OPS.total()
        c.refused(outputs=out)
        assert OPS.total() - before == 3 * 12 + 11
    c.refused(context=c.context[::-1])  # every part of the statement is in the digest
    c.refused(key=mul(other_scalar(b"k3"), c.key))


def test_a_lock_proof_verified_once_in_a_process_is_not_verified_again() -> None:
    secrets = SecretStream(b"lock proof memo test".ljust(32, b"."))
    k, lk = secrets.scalar("k"), secrets.scalar("lock")
    key, lock = base(k), base(lk)
    e = point_from_hash(b"a locked card")
    e2 = mul(smul(lk, inv(k)), e)
    proof = lock_proof.prove(TABLE, 3, e, e2, k, key, lk, lock, secrets, "memo")
    before = OPS.total()
    lock_proof.verify(TABLE, 3, e, e2, key, lock, proof)
    assert OPS.total() - before == 6
    before = OPS.total()
    lock_proof.verify(TABLE, 3, e, e2, key, lock, proof)
    assert OPS.total() == before
    for wrong in ({"i": 4}, {"context": TABLE[::-1]}, {"e2": e}, {"lock": key}):
        args = {"context": TABLE, "i": 3, "e": e, "e2": e2, "key": key, "lock": lock, **wrong}
        with pytest.raises(lock_proof.LockProofError):
            lock_proof.verify(proof=proof, **args)  # type: ignore[arg-type]


def test_proving_is_deterministic(case: Case) -> None:
    again = sp.prove(case.context, case.inputs, case.outputs, case.key, case.k, case.perm,
                     case.secrets, "test")
    assert again == case.proof
    other = sp.prove(case.context, case.inputs, case.outputs, case.key, case.k, case.perm,
                     case.secrets, "another label")
    assert other != case.proof
    case.verify(other)  # another proof of the same statement is as good


def test_known_answer_vector() -> None:
    """A fixed seed gives these exact bytes (a regression vector of this implementation: it
    changes only with the protocol, whose domain string then changes too)."""
    secrets = SecretStream(b"tractor shuffle proof known answer".ljust(32, b"."))
    inputs = cards(6, b"known-answer card")
    k = secrets.scalar("k")
    perm = secrets.permutation(6, "perm")
    outputs, key = sp.shuffle(inputs, k, perm)
    context = shuffle_context(b"kat-table-000001", 7, 2, 2)
    proof = sp.prove(context, inputs, outputs, key, k, perm, secrets, "kat")
    sp.verify(context, inputs, outputs, key, proof)
    assert perm == KAT_PERM
    assert hashlib.sha256(b"".join(outputs) + key).hexdigest() == KAT_DECK
    assert hashlib.sha256(msgpack.packb(proof.pack())).hexdigest() == KAT_PROOF


KAT_PERM = [3, 1, 2, 4, 0, 5]
KAT_DECK = "3cea051a5040f212734e4d96676f7582056fe874438dc24eb1c55f642f80c549"
KAT_PROOF = "7c926f3e972ca15bc577139aeaa67215414c738aa2d4d96e9ab65c11cc9486b8"  # tractor-deck/3


# --- wrong shuffles -------------------------------------------------------------------------------

FOREIGN = point_from_hash(b"not a card of this deck")


def test_substituted_card(case: Case) -> None:
    out = list(case.outputs)
    out[4] = mul(case.k, FOREIGN)
    case.refused(outputs=out)
    case.refused(outputs=out, proof=case.reproved(out))


def test_duplicated_card(case: Case) -> None:
    out = list(case.outputs)
    out[2] = out[7]
    case.refused(outputs=out)
    case.refused(outputs=out, proof=case.reproved(out))


def test_dropped_or_extra_card(case: Case) -> None:
    case.refused(outputs=case.outputs[:-1])
    case.refused(outputs=[*case.outputs, mul(case.k, FOREIGN)])
    case.refused(inputs=case.inputs[:-1], outputs=case.outputs[:-1])


def test_another_key_on_one_card(case: Case) -> None:
    out = list(case.outputs)
    out[0] = mul(other_scalar(b"k'"), case.inputs[case.perm[0]])
    case.refused(outputs=out)
    case.refused(outputs=out, proof=case.reproved(out))


def test_all_cards_rekeyed_with_another_key(case: Case) -> None:
    """A consistent shuffle under k' with the published key of k (or the reverse)."""
    k2 = other_scalar(b"k2")
    out, key2 = sp.shuffle(case.inputs, k2, case.perm)
    case.refused(outputs=out)
    case.refused(key=key2)
    case.refused(outputs=out, proof=case.reproved(out))


def test_cards_swapped_after_proving(case: Case) -> None:
    out = list(case.outputs)
    out[0], out[1] = out[1], out[0]
    case.refused(outputs=out)


def test_input_changed(case: Case) -> None:
    inputs = list(case.inputs)
    inputs[3] = FOREIGN
    case.refused(inputs=inputs)
    case.refused(inputs=case.inputs[::-1])


# --- binding: context, statement, every field -------------------------------------------------

@pytest.mark.parametrize("what", ["table", "hand", "seat", "step", "protocol domain"])
def test_proof_bound_to_its_context(case: Case, what: str) -> None:
    other = {"table": shuffle_context(b"other-table-0001", 3, 1, 1),
             "hand": shuffle_context(TABLE, 4, 1, 1),
             "seat": shuffle_context(TABLE, 3, 2, 1),
             "step": shuffle_context(TABLE, 3, 1, 2),
             "protocol domain": case.context[::-1]}[what]
    assert other != case.context
    case.refused(context=other)


def test_proof_of_another_statement_is_refused() -> None:
    """A proof replayed from another shuffle (another seat's, another hand's) of the same
    size does not verify this one, nor the other way round."""
    one, two = Case(12, seed=1, seat=1), Case(12, seed=2, seat=2)
    one.refused(proof=two.proof)
    two.refused(proof=one.proof)


@pytest.mark.parametrize("field", FIELDS)
def test_each_field_is_bound(case: Case, field: str) -> None:
    value = getattr(case.proof, field)
    if field in POINT_FIELDS:
        changed: object = add(value, base((5).to_bytes(32, "little")))
    elif field in SCALAR_FIELDS:
        changed = ((int.from_bytes(value, "little") + 1) % L).to_bytes(32, "little")
    else:
        vec = list(value)
        i = len(vec) // 2
        vec[i] = ((int.from_bytes(vec[i], "little") + 1) % L).to_bytes(32, "little")
        changed = tuple(vec)
    case.refused(proof=dataclasses.replace(case.proof, **{field: changed}))


@pytest.mark.parametrize("bad", ["identity", "order 8", "mixed order", "not on the curve"])
@pytest.mark.parametrize("field", POINT_FIELDS)
def test_bad_point_in_proof(case: Case, field: str, bad: str) -> None:
    value = {"identity": IDENTITY, "order 8": TORSION8,
             "mixed order": add(getattr(case.proof, field), TORSION8),
             "not on the curve": (2).to_bytes(32, "little")}[bad]
    with pytest.raises(sp.ShuffleProofError, match="not acceptable"):
        case.verify(dataclasses.replace(case.proof, **{field: value}))


@pytest.mark.parametrize("bad", ["zero", "L", "value + L", "2^256 - 1"])
@pytest.mark.parametrize("field", [*SCALAR_FIELDS, "z_d", "z_p"])
def test_bad_scalar_in_proof(case: Case, field: str, bad: str) -> None:
    value = getattr(case.proof, field)
    one = value[0] if isinstance(value, tuple) else value
    raw = {"zero": bytes(32), "L": L.to_bytes(32, "little"),
           "value + L": (int.from_bytes(one, "little") + L).to_bytes(32, "little"),
           "2^256 - 1": b"\xff" * 32}[bad]
    changed = (raw, *value[1:]) if isinstance(value, tuple) else raw
    with pytest.raises(sp.ShuffleProofError, match="not acceptable"):
        case.verify(dataclasses.replace(case.proof, **{field: changed}))


@pytest.mark.parametrize("shape", ["short", "long", "vector short", "not bytes", "31 bytes",
                                   "not a list"])
def test_unpack_checks_the_shape(case: Case, shape: str) -> None:
    raw = case.proof.pack()
    if shape == "short":
        raw = raw[:-1]
    elif shape == "long":
        raw = [*raw, raw[0]]
    elif shape == "vector short":
        raw[-1] = raw[-1][:-1]
    elif shape == "not bytes":
        raw[3] = 3
    elif shape == "31 bytes":
        raw[11] = raw[11][:31]
    else:
        raw = {"proof": raw}  # type: ignore[assignment]
    with pytest.raises(sp.ProofShapeError):
        sp.ShuffleProof.unpack(raw, case.n)


def test_unpack_round_trip(case: Case) -> None:
    again = sp.ShuffleProof.unpack(msgpack.unpackb(msgpack.packb(case.proof.pack())), case.n)
    assert again == case.proof


# --- properties on small decks --------------------------------------------------------------

@SETTINGS
@given(n=st.integers(1, 10), seed=st.integers(0, 2**16))
def test_property_honest_shuffles_verify(n: int, seed: int) -> None:
    Case(n, seed=seed).verify()


@SETTINGS
@given(n=st.integers(2, 10), seed=st.integers(0, 2**16), data=st.data())
def test_property_any_other_output_is_refused(n: int, seed: int, data: st.DataObject) -> None:
    """Whatever the output deck is made into (another order, one card replaced by a foreign
    point, by another card's point, or re-keyed differently), the proof of the honest
    shuffle and a proof made again on the false output (with the real k and permutation)
    are refused."""
    c = Case(n, seed=seed)
    out = list(c.outputs)
    how = data.draw(st.sampled_from(["permuted", "foreign", "copy", "rekeyed"]))
    i = data.draw(st.integers(0, n - 1))
    if how == "permuted":
        order = data.draw(st.permutations(range(n)).filter(lambda p: list(p) != list(range(n))))
        out = [out[j] for j in order]
    elif how == "foreign":
        out[i] = mul(c.k, point_from_hash(b"foreign", bytes([i])))
    elif how == "copy":
        j = data.draw(st.integers(0, n - 1).filter(lambda j: j != i))
        out[i] = out[j]
    else:
        out[i] = mul(other_scalar(bytes([i, 1])), c.inputs[c.perm[i]])
    assert out != c.outputs
    c.refused(outputs=out)
    c.refused(outputs=out, proof=c.reproved(out))


def test_the_largest_deck_fits_in_a_frame() -> None:
    """12 seats, 6 decks: 324 cards, the shuffle message with its proof far below MAX_FRAME
    (the lock of 324 cards is the largest set-up message)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tractor.net.deck.envelope import MAX_FRAME, Header, open_frame, seal
    from tractor.rules import MAX_DECKS, MAX_PLAYERS

    c = Case(54 * MAX_DECKS)
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    header = Header(TABLE, 3, 1, 0, "shuffle", tuple((0, bytes(32)) for _ in range(MAX_PLAYERS)))
    body = {"deck": c.outputs, "key": c.key, "proof": c.proof.pack(),
            "input": sp.deck_hash(c.inputs)}
    frame = seal(header, body, key)
    assert len(frame) < MAX_FRAME / 6
    env = open_frame(frame, TABLE, 3, [key.public_key()] * MAX_PLAYERS)
    c.verify(sp.ShuffleProof.unpack(env.body["proof"], c.n))
