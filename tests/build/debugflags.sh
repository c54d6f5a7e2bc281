#!/bin/sh
# --enable-debug builds at -O1: of the compile line's flags (the
# project's AM_CFLAGS_EXTRA, then CFLAGS) the last -O is -O1, unless
# configure was given a CFLAGS, which is then kept as it was given.
set -u
: "${top_builddir:=..}"
mk=$top_builddir/Makefile
var() { sed -n "s/^$1 = *//p" "$mk"; }

# configure's arguments, quoted for the shell
eval "set -- $("$top_builddir/config.status" --config)"
debug=no
given=
user=no
for a; do
	case $a in
	--enable-debug|--enable-debug=yes) debug=yes ;;
	--disable-debug|--enable-debug=no) debug=no ;;
	CFLAGS=*) given=${a#CFLAGS=}; user=yes ;;
	esac
done
[ $debug = yes ] || { echo "not a debug build"; exit 77; }
cflags=$(var CFLAGS)
if [ $user = yes ]; then
	# what configure was given, unchanged
	[ "$cflags" = "$given" ] && exit 0
	echo "CFLAGS \"$cflags\", configure was given \"$given\""
	exit 1
fi
o=
for f in $(var AM_CFLAGS_EXTRA) $cflags; do
	case $f in -O*) o=$f ;; esac
done
echo "debug build: AM_CFLAGS_EXTRA \"$(var AM_CFLAGS_EXTRA)\", CFLAGS \"$cflags\": $o"
[ "$o" = -O1 ]
