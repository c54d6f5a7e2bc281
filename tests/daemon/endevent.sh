#!/bin/sh
# One end event per launch, whichever of the engine and kernel.end sees
# the end first (tests/daemon/endclient.py).
. "$top_srcdir/tests/daemon/lib.sh"
python_client endclient.py "end events"
exit 0
