#!/bin/sh
# The daemon's layering: libbwdaemon calls nothing main.c defines (the
# unit tests link the library without it), and only the regulator
# backends (daemon/reg_*.c) and their lookup (daemon/regulator.c) name a
# backend - everywhere else what differs between them goes through the
# ops (regulator.h).
set -u
: "${top_srcdir:=..}"
: "${top_builddir:=..}"
lib=$top_builddir/daemon/.libs/libbwdaemon.a
main=$top_builddir/daemon/bwsched-main.o
bad=0

if [ -f "$lib" ] && [ -f "$main" ]; then
	nm -g --defined-only "$main" | awk 'NF == 3 && $3 != "main" { print $3 }' |
	    sort -u > layering.defs.$$
	nm -u "$lib" | awk '{ print $NF }' | sort -u > layering.undef.$$
	calls=$(comm -12 layering.defs.$$ layering.undef.$$)
	rm -f layering.defs.$$ layering.undef.$$
	if [ -n "$calls" ]; then
		echo "libbwdaemon calls into daemon/main.c:" $calls
		bad=1
	fi
else
	echo "no $lib or $main: the library check is not made"
fi

for f in "$top_srcdir"/daemon/*.c; do
	case ${f##*/} in
	reg_*.c|regulator.c) continue ;;
	esac
	# a backend's ops by name, or the configured name against one
	grep -HnE 'reg_(sim|kmod)_ops|reg_ops *[!=]=|strcmp\([^;]*"(sim|kmod)"' \
	    "$f" && bad=1
done
[ $bad -eq 0 ] || echo "layering broken (see above)"
exit $bad
