# expect.sh - sourced by the bwanalyze tests: compare a command's output
# with what it must print; failures are counted in $fail, which the
# script exits with.
fail=0

expect() {	# expected-output command...
	want=$1
	shift
	got=$("$@" 2>&1)
	if [ "$got" != "$want" ]; then
		echo "FAIL: $*"
		echo "  got:      $got"
		echo "  expected: $want"
		fail=1
	fi
}

expect_rc() {	# status pattern command...
	want=$1
	pat=$2
	shift 2
	got=$("$@" 2>&1)
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: $* exited $rc, expected $want: $got"
		fail=1
	fi
	case $got in
	*"$pat"*) ;;
	*) echo "FAIL: $*: output lacks '$pat': $got"; fail=1 ;;
	esac
}
