#!/bin/sh
# bwctl's bash completion: commands, options, keys and values.
: "${top_srcdir:=..}"
command -v bash >/dev/null || { echo "no bash: skipped"; exit 77; }
exec bash -c '
. "$1" || exit 1
comp() {	# expected words...
	want=$1; shift
	COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
	_bwctl
	got="${COMPREPLY[*]}"
	[ "$got" = "$want" ] || { echo "FAIL: $* -> \"$got\", want \"$want\""; exit 1; }
}
comp "status tasks kernels partitions get set subscribe top trace metrics" bwctl ""
comp "status set subscribe" bwctl -s /tmp/sock s
comp "--socket" bwctl --so
comp "policy" bwctl set pol
comp "nominal fair greedy smooth" bwctl set policy ""
comp "debug" bwctl --json set log_level de
comp "period_ns" bwctl get peri
comp "" bwctl get policy ""
comp "lock log" bwctl subscribe l
exit 0
' sh "$top_srcdir/client/bwctl.bash-completion"
