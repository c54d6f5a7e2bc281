#!/bin/sh
# The daemon's layering: libbwdaemon calls nothing main.c defines (the
# unit tests link the library without it), and only the regulator
# backends (daemon/reg_*.c) and their lookup (daemon/regulator.c) name a
# backend - everywhere else what differs between them goes through the
# ops (regulator.h).
#
# The include layering: each part's sources include only from their own
# folder and the folders of the part's list below (its include path, the
# PART_CPPFLAGS of its local.mk, which may not list more), so the pure
# algorithms (model/, gpu/) see nothing of the daemon, the client, the
# protocol or the platform, the platform sees only the model, the tools
# nothing of the daemon, the protocol or the client, and so on.  A fault
# is reported as FILE:LINE.
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
# Each part: its Makefile variable (- when it has none), the folders it
# may include from besides its own.  include/ and lib/ are on every path
# (AM_CPPFLAGS) but listed here too, so that lib/ and the public headers
# are held to theirs.
layers='
model		MODEL_CPPFLAGS		include lib
gpu		GPU_CPPFLAGS		include lib
lib		-			include
include/bwsched	-			include
proto		PROTO_CPPFLAGS		include lib
sim		SIM_CPPFLAGS		model include lib
daemon		DAEMON_CPPFLAGS		proto model sim kmod/uapi include lib
client		CLIENT_LIB_CPPFLAGS	proto model kmod/uapi include lib
client/cuda	BWCUDA_CPPFLAGS		include lib
fakecuda	FAKECUDA_CPPFLAGS	include lib
tools		TOOLS_CPPFLAGS		model sim gpu include lib
kmod/uapi	-
'
mk=$top_builddir/Makefile
# NAME: the value of a variable of the Makefile, continuation lines joined
mkvar() {
	awk -v n="$1" '{ line = line $0 }
	    /\\$/ { sub(/\\$/, "", line); next }
	    { if (index(line, n " = ") == 1) print substr(line, length(n) + 4)
	      line = "" }' "$mk"
}
# shellcheck disable=SC2016
# NAME: the folders of the source tree its -I flags name, variables in it
# expanded
incdirs() {
	for w in $(mkvar "$1"); do
		case $w in
		'-I$(top_srcdir)/'*) echo "${w#-I\$(top_srcdir)/}" ;;
		'-I'*) [ "$w" = '-I$(top_builddir)' ] || echo "$w" ;;
		'$('*'_CPPFLAGS)') w=${w#\$(}; incdirs "${w%)}" ;;
		esac
	done
}
if [ -f "$mk" ]; then
	extra=$(incdirs AM_CPPFLAGS | grep -vxE 'include|lib')
	if [ -n "$extra" ]; then
		echo "AM_CPPFLAGS puts a part's folder on every path:" $extra
		bad=1
	fi
fi
echo "$layers" | while read -r part var allowed; do
	[ -n "$part" ] || continue
	# the Makefile's list may not be wider than the part's
	if [ "$var" != - ] && [ -f "$mk" ]; then
		list=$(incdirs "$var")
		[ -n "$list" ] || { echo "$mk: no $var"; echo x; }
		for d in $list; do
			case " $part $allowed " in
			*" $d "*) ;;
			*) echo "$var: -I $d: not on $part/'s list"; echo x ;;
			esac
		done
	fi
	for f in "$top_srcdir/$part"/*.[ch] "$top_srcdir/$part"/*.cuh; do
		[ -f "$f" ] || continue
		# line number, " or <, the name
		awk '{ if (!match($0, /^[ \t]*#[ \t]*include[ \t]*["<][^">]*[">]/))
			next
		    s = substr($0, RSTART, RLENGTH)
		    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
		    print FNR, substr(s, 1, 1), substr(s, 2, length(s) - 2) }' "$f" |
		while read -r ln q inc; do
			case $q$inc in
			*..*) where="leaves the folder" ;;
			'<bwsched/'*)
				[ -f "$top_srcdir/include/$inc" ] && continue
				where="is not in include/" ;;
			'<'*) continue ;;
			*)	# as the compiler looks: the file's folder, the list
				for d in "$part" $allowed; do
					[ -f "$top_srcdir/$d/$inc" ] && continue 2
				done
				in=$(cd "$top_srcdir" && for h in */"$inc" */*/"$inc"; do
					[ -f "$h" ] && printf '%s ' "${h%/"$inc"}/"; done)
				where="is ${in:+in }${in:-nowhere in the tree}"
				where="${where% }, not on $part/'s path ($part $allowed)" ;;
			esac
			[ "$q" = '<' ] && c='>' || c=$q
			echo "${f#"$top_srcdir"/}:$ln: include $q$inc$c: $where"
			echo x
		done
	done
done > layering.inc.$$
grep -v '^x$' layering.inc.$$
grep -qx x layering.inc.$$ && bad=1
rm -f layering.inc.$$
[ $bad -eq 0 ] || echo "layering broken (see above)"
exit $bad
