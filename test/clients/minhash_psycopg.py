import struct

from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo


class MinHash(bytes):
    """A minhash signature in its binary form, the bytes minhash_send returns."""

    @property
    def num_perm(self):
        return struct.unpack_from(">I", self, 12)[0]

    @property
    def values(self):
        return struct.unpack_from(f">{self.num_perm}I", self, 24)


class MinHashLoader(Loader):
    format = Format.BINARY

    def load(self, data):
        return MinHash(data)


def register_minhash(conn):
    """Binary minhash on this connection: binary results and COPY rows are
    MinHash objects, and a MinHash parameter goes to the server as a minhash."""
    info = TypeInfo.fetch(conn, "minhash")
    info.register(conn)  # lets copy.set_types() name "minhash"

    class MinHashDumper(Dumper):
        format = Format.BINARY
        oid = info.oid

        def dump(self, obj):
            return obj

    conn.adapters.register_loader(info.oid, MinHashLoader)
    conn.adapters.register_dumper(MinHash, MinHashDumper)
