#!/usr/bin/env python3
"""Writes the seed corpus of p2p_wire_fuzz (fuzz/corpus/p2p_wire/): one well-formed exchange per
packet kind, in the input encoding of fuzz/p2p_wire_fuzz.c (configuration byte, then operations),
and, as fixed_*, the inputs of the target's findings against src/p2p (fuzz/README.md), which now
end in protocol errors. Run from anywhere: python3 fuzz/p2p_wire_seeds.py"""
import os

# configuration byte: world (bits 0-1), CMA (bit 2), rendezvous path (bits 3-4: auto, CMA for all,
# copy for all, CMA from 4 KiB), send batching (bit 5), eager limit (bits 6-7: 512, 3072, 0, 100)
W0, W1, W2, W3 = 0, 1, 2, 3
CMA = 0x04
AUTO, CMA_ALL, COPY_ALL, CMA_4K = 0x00, 0x08, 0x10, 0x18
BATCH = 0x20

EAGER, EAGER_CONT, RTS, FIN, CTS, COPY_DATA, COPY_ACK, FC_CREDIT, FC_REQUEST, FC_RESPONSE, CANCEL, \
    CANCEL_ACK, COPY_END = range(1, 14)


def ln(v):
    """g_len"""
    if v < 0x80:
        return bytes([v])
    if v < 0x2000:
        return bytes([0x80 + (v >> 8), v & 0xff])
    if v < 0x200000:
        return bytes([0xa0 + (v >> 16), v & 0xff, (v >> 8) & 0xff])
    return bytes([0xf0]) + v.to_bytes(4, 'little')


# g_word selectors
def small(v):
    assert v < 0x40
    return bytes([v])


def handle(slot):  # req_handle of the program's request in that slot
    return bytes([0x40 + slot, 0x00])


def crecv_id(k=0):
    return bytes([0x60 + k])


def crecv_seq(k=0):
    return bytes([0x68 + k])


def job_seq():  # our head copy's transfer number
    return bytes([0x70])


def buflen(slot):
    return bytes([0x80 + slot, 0x00])


def wlen(v):
    return bytes([0xa0]) + ln(v)


def pkt(kind, src=1, ns=1, body=b''):
    """a peer's chunk; src 1..n-1"""
    b = bytes([0x00, src - 1, kind - 1])
    if kind in (EAGER, EAGER_CONT):
        b += bytes([ns])
    return b + body


def msg(tag=0, ctx=0, length=0, piggy=0, sync=0):
    return bytes([tag, ctx]) + ln(length) + bytes([piggy, sync])


def eager(length, ns=1, src=1, tag=0, piggy=0):
    return pkt(EAGER, src, ns, msg(tag, 0, length, piggy))


def rts(length, addr=b'\x00', sreq=b'\x05', src=1, tag=0, sync=0):
    return pkt(RTS, src, 1, msg(tag, 0, length, 0, sync) + addr + sreq)


def ctrl(kind, a, b=b'\x00', c=b'\x00', d=b'\x00', src=1):
    return pkt(kind, src, 1, a + b + c + d)


def fc(kind, value, src=1):
    return pkt(kind, src, 1, bytes([value]))


def recv(length, src=1, tag=0, ctx=0):
    return bytes([0x04, src, tag, ctx]) + ln(length)


def send(length, dest=1, tag=0, ctx=0, mode=0, batch=False):
    return bytes([0x07 if batch else 0x06, dest, tag, ctx]) + ln(length) + bytes([mode])


PROGRESS = b'\x0a'
WAIT = b'\x0c'


def cancel(slot):
    return bytes([0x08, slot])


def release(slot):
    return bytes([0x09, slot])


def later(us):
    return bytes([0x0b, us - 1])


def peer_in_wait(flag, peer=1):
    return bytes([0x0d | (flag << 4), peer - 1])


def block(what, peer=1, tag=0, ctx=0, length=0, yields=1):
    """a blocking call: what 0 p2p_recv, 1 p2p_send (| 0x80: synchronous), 2 p2p_wait on slot peer"""
    return bytes([0x4c, what | ((yields - 1) << 2), peer, tag, ctx]) + ln(length)


seeds = {
    'eager_posted': bytes([W0]) + recv(100) + eager(60, ns=2) + PROGRESS,
    'eager_unexpected_cont': bytes([W0]) + eager(100, ns=1, piggy=1) + pkt(EAGER_CONT, 1, 2) + PROGRESS + recv(100) + PROGRESS,
    'eager_long_posted_cont': bytes([W3]) + recv(300, tag=2) + eager(300, ns=3, tag=2) + pkt(EAGER_CONT, 1, 3)
    + eager(20, src=2) + eager(20, src=3) + PROGRESS,
    'eager_stream_batch': bytes([W0 | BATCH]) + send(8) + send(16, batch=True) + send(200, batch=True)
    + send(24, batch=True) + recv(8) + eager(8) + fc(FC_CREDIT, 3) + PROGRESS,
    'rts_cma': bytes([W0 | CMA | CMA_ALL]) + recv(8192) + rts(8192) + PROGRESS,
    'rts_unexpected_cma': bytes([W0 | CMA | CMA_ALL]) + rts(3000, sreq=b'\x07') + PROGRESS + recv(4096)
    + PROGRESS,
    'rts_prepushed': bytes([W0]) + recv(2000) + rts(2000, addr=b'\x80', sreq=b'\x00') + PROGRESS,
    'fc_credit': bytes([W0]) + send(40) + fc(FC_CREDIT, 4) + PROGRESS,
    'fc_request_response': bytes([W1]) + eager(8) + fc(FC_REQUEST, 0) + fc(FC_RESPONSE, 1, src=2) + PROGRESS,
    'fin': bytes([W0 | CMA | CMA_ALL]) + send(4096) + PROGRESS + ctrl(FIN, handle(0)) + PROGRESS + release(0),
    'fin_prepush_units': bytes([W0]) + send(3000) + PROGRESS + ctrl(FIN, small(0), bytes([0x79, 0]), small(3))
    + PROGRESS,
    'fin_sync_prepushed': bytes([W0]) + send(1500, mode=1) + PROGRESS + ctrl(FIN, handle(0), bytes([0x79, 0]),
                                                                              small(2)) + PROGRESS,
    'cts_copy_ack': bytes([W2 | COPY_ALL]) + send(8192) + PROGRESS + ctrl(CTS, handle(0), small(7), buflen(0))
    + PROGRESS + ctrl(COPY_ACK, small(0), wlen(4096), small(0), job_seq())
    + ctrl(COPY_ACK, small(1), wlen(4096), small(0), job_seq()) + PROGRESS,
    'copy_data': bytes([W0 | COPY_ALL]) + recv(8192) + rts(8192, sreq=b'\x09') + PROGRESS
    + ctrl(COPY_DATA, crecv_id(), small(0), wlen(4096), small(0))
    + ctrl(COPY_DATA, crecv_id(), wlen(4096), wlen(4096), small(1)) + PROGRESS,
    'copy_takeover_end': bytes([W0 | CMA | AUTO]) + WAIT + peer_in_wait(1) + recv(8192) + rts(8192) + PROGRESS
    + ctrl(COPY_DATA, crecv_id(), small(0), wlen(4096), small(0)) + PROGRESS + peer_in_wait(0) + later(100)
    + PROGRESS + later(100) + PROGRESS + ctrl(COPY_DATA, crecv_id(), wlen(4096), wlen(4096), small(1))
    + ctrl(COPY_END, crecv_id(), crecv_seq()) + PROGRESS,
    'copy_taken_sender': bytes([W2 | CMA | COPY_ALL]) + send(20000) + PROGRESS
    + ctrl(CTS, handle(0), small(3), buflen(0)) + PROGRESS + bytes([0x8d, 0x00, 0x70]) + later(200) + PROGRESS,
    'cancel': bytes([W0 | CMA | CMA_ALL]) + rts(5000, sreq=b'\x33') + PROGRESS + ctrl(CANCEL, small(0x33))
    + PROGRESS,
    'cancel_prepushed': bytes([W0]) + rts(3000, addr=b'\x82', sreq=b'\x21') + PROGRESS
    + ctrl(CANCEL, small(0x21)) + PROGRESS,
    'cancel_ack': bytes([W0 | CMA | CMA_ALL]) + send(4096) + PROGRESS + cancel(0) + PROGRESS
    + ctrl(CANCEL_ACK, handle(0), small(1)) + PROGRESS,
    'cancel_ack_matched': bytes([W0 | CMA | CMA_ALL]) + send(4096) + PROGRESS + cancel(0)
    + ctrl(FIN, handle(0)) + ctrl(CANCEL_ACK, handle(0), small(0)) + PROGRESS,
    'mprobe': bytes([W3]) + eager(96, ns=2, src=2) + bytes([0x0e, 0x20, 0x00, 0x01, 0x00]) + PROGRESS
    + bytes([0x0e, 0x00, 0x00, 0x02, 0x00]) + ln(96) + PROGRESS,
    'none_scheme': bytes([W2]) + send(8) + send(300) + eager(8) + recv(8) + PROGRESS,
    'dynamic_three_ranks': bytes([W1 | CMA]) + recv(50, src=0xff, tag=0xff) + eager(50, src=2)
    + rts(20000, src=1, addr=b'\x01') + recv(20000, src=1) + PROGRESS,
    'blocking_recv_direct': bytes([W0]) + eager(30) + block(0, length=30) + PROGRESS,
    'blocking_recv_spill': bytes([W3]) + eager(96, ns=2, tag=3) + eager(8, tag=3) + eager(8, tag=3)
    + block(0, length=8, yields=4),
    'blocking_send_rndv': bytes([W0 | CMA | CMA_ALL]) + block(1, length=5000),
    'blocking_wait_copy': bytes([W2 | COPY_ALL]) + send(12288) + block(2, peer=0),
    # overlapping COPY_DATA chunks take the copy past its length; the takeover then asks for n - off
    'copy_overlapping_chunks': bytes([W0 | CMA | AUTO]) + WAIT + peer_in_wait(1) + recv(8192) + rts(8192)
    + PROGRESS + ctrl(COPY_DATA, crecv_id(), small(0), wlen(4096), small(0))
    + ctrl(COPY_DATA, crecv_id(), small(0), wlen(3000), small(1))
    + ctrl(COPY_DATA, crecv_id(), small(0), wlen(4096), small(0)) + PROGRESS
    + peer_in_wait(0) + later(100) + PROGRESS + later(100) + PROGRESS,
    'defer_pull': bytes([W0 | CMA | CMA_ALL]) + bytes([0x0f]) + ln(4096) + rts(65536) + PROGRESS + recv(65536)
    + PROGRESS,
}



def from_self(kind, ns=1, body=b''):
    """a chunk whose slot header names rank 0, the receiver itself"""
    b = bytes([0x00, 0xf0, kind - 1])
    if kind in (EAGER, EAGER_CONT):
        b += bytes([ns])
    return b + body


ACK0 = ctrl(COPY_ACK, small(0), wlen(4096), small(0), job_seq())
findings = {
    # 1: a slot header naming this rank: the reply (FIN, credit) goes to P.peer[0], never mapped
    'self_src_rts': bytes([W0 | CMA | CMA_ALL]) + recv(100, src=0xff) + from_self(RTS, 1, msg(0, 0, 100) + b'\x00\x05')
    + PROGRESS,
    'self_src_eager': bytes([W0]) + recv(20000, src=0xff) + from_self(EAGER, 200, msg(0, 0, 11000)) + PROGRESS,
    # 2: a CTS asking for one byte more than the send has: the copy stages it from past the buffer
    'cts_len': bytes([W2 | COPY_ALL]) + send(8192) + PROGRESS + ctrl(CTS, handle(0), small(7), bytes([0x80, 0x01]))
    + PROGRESS + ACK0 + PROGRESS,
    # 3: a FIN (or a CANCEL_ACK "dropped") for a send that is not waiting for one completes it; the
    # program frees the buffer, the engine still reads it
    'fin_during_copy': bytes([W2 | COPY_ALL]) + send(12288) + PROGRESS + ctrl(CTS, handle(0), small(7), buflen(0))
    + PROGRESS + ctrl(FIN, handle(0)) + PROGRESS + release(0) + ACK0 + PROGRESS,
    'fin_queued': bytes([W3]) + send(40) * 9 + PROGRESS + ctrl(FIN, handle(8)) + PROGRESS + release(8)
    + fc(FC_CREDIT, 6) + PROGRESS,
    'cancel_ack_during_copy': bytes([W2 | COPY_ALL]) + send(12288) + PROGRESS + cancel(0)
    + ctrl(CTS, handle(0), small(7), buflen(0)) + PROGRESS + ctrl(CANCEL_ACK, handle(0), small(1)) + PROGRESS
    + release(0) + ACK0 + PROGRESS,
    # 4: a FIN returning units 100..127 of an area of 100 units: a later prepush writes past the segment
    'prepush_past_area': bytes([W1]) + ctrl(FIN, small(0), bytes([0x79, 100]), small(28)) + PROGRESS
    + send(65536) + send(50000) + PROGRESS,
    # 5: one-slot first chunks of 1 MiB messages, each a new message before the last one ended
    'unexpected_flood': bytes([W0]) + eager(1048576) * 300 + PROGRESS,
}

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'corpus', 'p2p_wire')
os.makedirs(out, exist_ok=True)
for name, data in list(seeds.items()) + [('fixed_' + k, v) for k, v in findings.items()]:
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)
