#!/bin/sh
# A client written from doc/protocol.md with the Python standard library.
. "$top_srcdir/tests/daemon/lib.sh"
python_client thirdparty.py "python client"
exit 0
