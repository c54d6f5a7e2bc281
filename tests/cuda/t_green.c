/*
 * t_green - the green-context path of the CUDA layer (client/cuda/green.c)
 * against the fake driver: drive launches through the preloaded
 * interposer and check, from the log the fake driver and the recording
 * sink share, the splits requested, the green contexts made, that every
 * launch went to its partition's green stream between the events that
 * keep its application stream's order, and what was reported back.  Run
 * by green.sh: t_green SCENARIO LOG [PARTITION_FILE].
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../fakecuda/fakecuda.h"
#include "../check.h"

#define S(x)	((CUstream)(uintptr_t)(x))
#define MAXL	4096

static const char	*logpath, *partfile;
static char		*lines[MAXL];
static int		 nlines;

static void
load(void)
{
	static char	buf[1 << 20];
	FILE		*f;
	size_t		 n;
	char		*p, *save;

	nlines = 0;
	if ((f = fopen(logpath, "r")) == NULL)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = strtok_r(buf, "\n", &save); p != NULL && nlines < MAXL;
	    p = strtok_r(NULL, "\n", &save))
		lines[nlines++] = p;
}

static int
count(const char *prefix)
{
	int	i, n = 0;

	for (i = 0; i < nlines; i++)
		n += strncmp(lines[i], prefix, strlen(prefix)) == 0;
	return n;
}

/* The stream (second word after "call NAME") of line i, or 0. */
static unsigned long
arg_of(int i)
{
	const char	*p = strchr(lines[i] + 5, ' ');

	return p != NULL ? strtoul(p + 1, NULL, 0) : 0;
}

static int
is_launch(int i)
{
	return strncmp(lines[i], "call cuLaunchKernel", 19) == 0 ||
	    strncmp(lines[i], "call cuGraphLaunch", 18) == 0;
}

static int
is_green(unsigned long s)
{
	char	pat[64];

	snprintf(pat, sizeof(pat), "call cuGreenCtxStreamCreate %#lx ", s);
	return count(pat) == 1;
}

/*
 * Every launch is on a green stream, after the application stream's
 * event and the green stream's wait, and followed by the event back.
 */
static int
launches_green(void)
{
	int	i, n = 0, bad = 0;

	for (i = 0; i < nlines; i++) {
		if (!is_launch(i))
			continue;
		n++;
		if (!is_green(arg_of(i)) || i < 2 || i + 2 >= nlines ||
		    strncmp(lines[i - 2], "call cuEventRecord ", 19) != 0 ||
		    strncmp(lines[i - 1], "call cuStreamWaitEvent ", 23) != 0 ||
		    arg_of(i - 1) != arg_of(i) ||
		    strncmp(lines[i + 1], "call cuEventRecord ", 19) != 0 ||
		    arg_of(i + 1) != arg_of(i) ||
		    strncmp(lines[i + 2], "call cuStreamWaitEvent ", 23) != 0 ||
		    arg_of(i + 2) != arg_of(i - 2)) {
			fprintf(stderr, "launch not on its green stream: %s\n",
			    lines[i]);
			bad++;
		}
	}
	return n > 0 && bad == 0 ? n : -1;
}

/* The green stream line i launched on was made for application stream
 * user: its first launch was preceded by an event on user. */
static unsigned long
green_of(unsigned long user)
{
	int	i;

	for (i = 2; i < nlines; i++)
		if (is_launch(i) && arg_of(i - 2) == user)
			return arg_of(i);
	return 0;
}

static int
last_launch(void)
{
	int	i;

	for (i = nlines - 1; i >= 0 && !is_launch(i); i--)
		;
	return i;
}

static void
set_partition(const char *text)
{
	FILE	*f = fopen(partfile, "w");

	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
}

static void
launch(CUstream s)
{
	CHECK(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL) == 0);
}

/* Launches of every kind on four application streams. */
static void
scenario_split(void)
{
	CUlaunchConfig	c = { 1, 1, 1, 1, 1, 1, 0, S(0x200), NULL, 0 };
	unsigned long	g;

	launch(S(0x100));
	launch(S(0x100));
	launch(NULL);
	CHECK(cuLaunchKernel_ptsz(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL,
	    NULL) == 0);
	CHECK(cuLaunchKernelEx(&c, NULL, NULL, NULL) == 0);
	CHECK(cuGraphLaunch(NULL, S(0x100)) == 0);
	CHECK(cuStreamSynchronize(S(0x100)) == 0);
	load();
	/* one split for the device report, one for the context */
	CHECK(count("call cuDevSmResourceSplitByCount min=2 group=2 "
	    "groups=34") == 2);
	CHECK(count("gpu_device 68 2") == 1);
	/* SMs 4-9: groups 2, 3, 4 of 2 SMs */
	CHECK(count("call cuDevResourceGenerateDesc first=2 groups=3 sms=6") ==
	    1);
	CHECK(count("call cuGreenCtxCreate ") == 1);
	CHECK(count("gpu_granted 6") == 1);
	/* a green stream per application stream: 0x100, legacy,
	 * per-thread, 0x200 */
	CHECK(count("call cuGreenCtxStreamCreate ") == 4);
	CHECK(launches_green() == 6);
	g = green_of(0x100);
	CHECK(g != 0 && g != green_of(0x200) && g != green_of(0x2) &&
	    is_green(green_of(0)));
	/* the lock follows the application's streams, not ours */
	CHECK(count("active 0x100") >= 1 && count("sync 0x100") == 1);
	CHECK(count("active 0x70") == 0);
}

/* The plan moves the task: later launches go to a new context. */
static void
scenario_move(void)
{
	unsigned long	g1;

	launch(S(0x100));
	set_partition("2 10 4 2\n");
	launch(S(0x100));
	set_partition("3 10 4 2\n");	/* a new plan, the same SMs */
	launch(S(0x100));
	load();
	CHECK(count("call cuGreenCtxCreate ") == 2);
	CHECK(count("call cuDevResourceGenerateDesc first=5 groups=2 "
	    "sms=4") == 1);
	CHECK(count("call cuGreenCtxStreamCreate ") == 2);
	CHECK(count("gpu_granted 4") == 1);
	CHECK(launches_green() == 3);
	g1 = green_of(0x100);
	CHECK(g1 != 0 && last_launch() > 0 && arg_of(last_launch()) != g1);
}

/* A driver that rounds groups up: the granted size is reported. */
static void
scenario_round(void)
{
	launch(S(0x100));
	load();
	CHECK(count("call cuDevResourceGenerateDesc first=2 groups=3 "
	    "sms=12") == 1);
	CHECK(count("gpu_granted 12") == 1);
	CHECK(launches_green() == 1);
}

/* Three launches on the application's streams, none on ours. */
static void
launches_plain(void)
{
	int	i;

	launch(S(0x100));
	launch(NULL);
	launch(S(0x100));
	load();
	CHECK(count("call cuGreenCtxStreamCreate ") == 0);
	for (i = 0; i < nlines; i++)
		if (is_launch(i))
			CHECK(arg_of(i) == 0x100 || arg_of(i) == 0);
	CHECK(count("call cuLaunchKernel 0x100") == 2);
}

/* No partition, or no green contexts: unpartitioned. */
static void
scenario_plain(void)
{
	launches_plain();
	CHECK(count("call cuGreenCtxCreate ") == 0);
}

/* The driver refuses the context: tried once for the plan, not again. */
static void
scenario_fail(void)
{
	fakecuda_set_fail("cuGreenCtxCreate");
	launches_plain();
	CHECK(count("call cuGreenCtxCreate ") == 1);
}

/* Destroying an application stream destroys its green stream. */
static void
scenario_destroy(void)
{
	unsigned long	g;
	char		pat[64];

	launch(S(0x100));
	CHECK(cuStreamDestroy_v2(S(0x100)) == 0);
	launch(S(0x100));
	load();
	g = green_of(0x100);
	snprintf(pat, sizeof(pat), "call cuStreamDestroy_v2 %#lx", g);
	CHECK(g != 0 && count(pat) == 1);
	CHECK(count("call cuStreamDestroy_v2 0x100") == 1);
	CHECK(count("call cuGreenCtxStreamCreate ") == 2);
}

static uint64_t	(*green_key)(uint64_t, int);
static uint64_t	 seen_key;

static void
hook(CUstream s)
{
	seen_key = green_key((uint64_t)(uintptr_t)s, 0);
}

/*
 * The CUPTI injection asks, inside the launch, which application stream
 * the green stream stands for: no deadlock, the application's stream.
 */
static void
scenario_reenter(void)
{
	*(void **)&green_key = dlsym(RTLD_DEFAULT, "bwcuda_green_key");
	CHECK(green_key != NULL);
	if (green_key == NULL)
		return;
	fakecuda_set_launch_hook(hook);
	alarm(20);		/* a deadlock fails instead of hanging */
	launch(S(0x100));
	alarm(0);
	CHECK(seen_key == 0x100);
	load();
	CHECK(launches_green() == 1);
	CHECK(green_key(green_of(0x100), 0) == 0x100);
	CHECK(green_key(0x4242, 0) == 0x4242);
}

/* With libbwclient and the daemon: the plan's SMs, granted back. */
static void
scenario_live(void)
{
	launch(S(0x100));
	launch(S(0x100));
	launch(S(0x300));
	CHECK(cuStreamSynchronize(S(0x100)) == 0);
	load();
	CHECK(count("call cuGreenCtxCreate ") == 1);
	CHECK(launches_green() == 3);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char	*name;
		void		(*fn)(void);
	} sc[] = { { "split", scenario_split }, { "move", scenario_move },
	    { "round", scenario_round }, { "plain", scenario_plain },
	    { "fail", scenario_fail }, { "destroy", scenario_destroy },
	    { "live", scenario_live }, { "reenter", scenario_reenter } };
	size_t	i;

	if (argc < 3)
		return 2;
	logpath = argv[2];
	partfile = argc > 3 ? argv[3] : "/nonexistent";
	CHECK(cuInit(0) == 0);
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		if (strcmp(argv[1], sc[i].name) == 0) {
			sc[i].fn();
			return failures ? 1 : 0;
		}
	fprintf(stderr, "t_green: unknown scenario %s\n", argv[1]);
	return 2;
}
