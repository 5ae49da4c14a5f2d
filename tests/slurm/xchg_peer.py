#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One peer of librankmap-nccl's id exchange in secret mode, written from
docs/nccl.md (not from nccl/*.c) over libsodium through ctypes: it proves
its hello and opens rank 0's sealed answer with the step's
RANKMAP_NCCL_SECRET as a task of the step. Prints "EXCHANGE rank=R ok
<first 16 hex of the id>" like tests/nccl/probe_exchange.c, or
"EXCHANGE rank=R failed: <why>".
"""
import ctypes
import ctypes.util
import os
import socket
import struct
import sys
import time

MAGIC = b"RMNXCHG3"
LABEL = b"rankmap-nccl-exchange/3\0"
HMAC = 2          # the mode's number on the wire: auto, munge, hmac, none
ID_LEN = 128      # what probe_exchange hands out


def sodium():
    lib = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
    if lib.sodium_init() < 0:
        raise OSError("sodium_init")
    return lib


def subkey(lib, secret, n):
    out = ctypes.create_string_buffer(32)
    lib.crypto_kdf_derive_from_key(out, ctypes.c_size_t(32),
                                   ctypes.c_uint64(n), b"rmnxchg3", secret)
    return out.raw


def recv(s, n):
    b = b""
    while len(b) < n:
        k = s.recv(n - len(b))
        if not k:
            raise EOFError("connection closed after %d of %d bytes" % (len(b), n))
        b += k
    return b


def fields(kind, words, digest, rnonce, pnonce, status, clen):
    return (LABEL + kind + struct.pack(">6I", *words) + digest + rnonce +
            pnonce + struct.pack(">II", status, clen))


def once(lib, secret, rank, world, host, port):
    e = os.environ
    jobid, stepid = int(e["SLURM_JOB_ID"]), int(e["SLURM_STEP_ID"])
    digest = e["RANKMAP_MAP_SHA256"].encode().ljust(64, b"\0")
    s = socket.create_connection((host, port), timeout=5)
    ch = recv(s, 8 + 4 + 32)
    if ch[:8] != MAGIC or struct.unpack(">I", ch[8:12])[0] != HMAC:
        raise ValueError("challenge %r" % ch[:12])
    rnonce = ch[12:]
    pnonce = os.urandom(32)
    words = (HMAC, jobid, stepid, rank, world, ID_LEN)
    mac = ctypes.create_string_buffer(32)
    f = fields(b"H", words, digest, rnonce, pnonce, 0, 0)
    lib.crypto_auth(mac, f, ctypes.c_ulonglong(len(f)), subkey(lib, secret, 1))
    s.sendall(MAGIC + struct.pack(">6I", rank, world, ID_LEN, HMAC, jobid,
                                  stepid) + digest + pnonce +
              struct.pack(">I", 32) + mac.raw)
    head = recv(s, 8 + 12)
    status, blen, plen = struct.unpack(">III", head[8:])
    body, proof = recv(s, blen), recv(s, plen)
    if plen != 24 + 16:
        raise ValueError("answer proof of %d bytes, not a nonce and a tag" % plen)
    ad = fields(b"A", words, digest, rnonce, pnonce, status, blen)
    out = ctypes.create_string_buffer(max(blen, 1))
    rc = lib.crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
        out, None, body, ctypes.c_ulonglong(blen), proof[24:], ad,
        ctypes.c_ulonglong(len(ad)), proof[:24], subkey(lib, secret, 2))
    if rc != 0:
        raise ValueError("the answer's seal does not open")
    if status != 0:
        raise ValueError("refused: %r" % out.raw[:blen])
    return out.raw[:blen]


def main():
    e = os.environ
    rank, world = int(e["RANK"]), int(e["WORLD_SIZE"])
    secret = bytes.fromhex(e["RANKMAP_NCCL_SECRET"])
    port = int(e["MASTER_PORT"]) + 1
    lib = sodium()
    why = "no attempt"
    for _ in range(100):   # until rank 0 listens
        try:
            blob = once(lib, secret, rank, world, e["MASTER_ADDR"], port)
            print("EXCHANGE rank=%d ok %s" % (rank, blob[:8].hex()))
            return 0
        except (OSError, EOFError) as x:
            why = str(x)
            time.sleep(0.2)
        except ValueError as x:
            print("EXCHANGE rank=%d failed: %s" % (rank, x))
            return 1
    print("EXCHANGE rank=%d failed: %s" % (rank, why))
    return 1


if __name__ == "__main__":
    sys.exit(main())
