/*
 * test_config.c - bwsched.conf parsing: good files, every kind of bad
 * line with its line number, get/set at run time.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#include "../check.h"

static int
parse(const char *text, struct config *c, char *err)
{
	config_defaults(c);
	err[0] = '\0';
	return config_parse(c, text, strlen(text), "t.conf", err,
	    CONFIG_ERR_MAX);
}

static void
good(void)
{
	struct config		c;
	struct config_value	v;
	char			err[CONFIG_ERR_MAX];
	const char		*text =
	    "# comment\n"
	    "\n"
	    "socket = /tmp/x.sock   # trailing comment\n"
	    "group=wheel\n"
	    "period_ns = 2000000\n"
	    "lead_ns = 1e5\n"
	    "admin_group = adm\n"
	    "policy = smooth\n"
	    "regulator = sim\n"
	    "be_cores = 0,2-4\n"
	    "rho = 3\n"
	    "bwmax_events = 60000\n"
	    "overhead_events = 470\n"
	    "failsafe_q = 0.05\n"
	    "heartbeat_timeout_ns = 50000000\n"
	    "slowdown = 0.2\n"
	    "smooth_a = 0.5\n"
	    "max_clients = 10\n"
	    "max_msgs_per_sec = 100\n"
	    "max_output_bytes = 131072\n"
	    "max_tasks = 4\n"
	    "max_kernels_per_task = 8\n"
	    "log_level = debug\n"
	    "period_thread_priority = 80\n"
	    "event_type = 4\n"
	    "event_config = 0x17\n"
	    "period_thread_cpu = 1\r\n";

	CHECKM(parse(text, &c, err) == 0, "good file: %s", err);
	CHECKM(strcmp(c.socket, "/tmp/x.sock") == 0, "socket");
	CHECKM(strcmp(c.group, "wheel") == 0, "group");
	CHECKM(strcmp(c.admin_group, "adm") == 0, "admin_group");
	CHECKM(c.event_type == 4 && c.event_config == 0x17, "event type/config");
	CHECKM(strcmp(c.device, "/dev/bwreg") == 0, "device default");
	CHECKM(c.period_ns == 2000000 && c.lead_ns == 100000, "period/lead");
	CHECKM(c.policy == POLICY_SMOOTH, "policy");
	CHECKM(c.ncores == 4 && c.cores[0] == 0 && c.cores[1] == 2 &&
	    c.cores[3] == 4, "be_cores");
	CHECKM(c.rho == 3 && c.failsafe_q == 0.05 && c.smooth_a == 0.5,
	    "doubles");
	CHECKM(c.max_output_bytes == 131072 && c.max_tasks == 4, "limits");
	CHECKM(c.log_level == LOG_L_DEBUG, "log_level");
	CHECKM(c.period_thread_priority == 80 && c.period_thread_cpu == 1,
	    "period thread");
	CHECKM(config_get(&c, "be_cores", &v) == 0 &&
	    strcmp(v.s, "0,2-4") == 0, "be_cores text %s", v.s);
	CHECKM(config_get(&c, "period_thread_cpu", &v) == 0 &&
	    v.type == CONFIG_T_INT && v.i == 1, "get int");
	CHECKM(config_get(&c, "nosuch", &v) < 0, "get unknown");
	CHECKM(parse("period_thread_cpu = none\n", &c, err) == 0 &&
	    c.period_thread_cpu == -1, "cpu none");
	CHECKM(parse("", &c, err) == 0, "empty file");
	CHECKM(parse("gpu_sms = 68\ngpu_sm_granule = 2\n", &c, err) == 0 &&
	    c.gpu_sms == 68 && c.gpu_sm_granule == 2, "gpu keys");
	CHECKM(parse("gpu_sm_granule = 8\n", &c, err) == 0, "granule alone");
}

static void
bad(void)
{
	static const struct {
		const char	*text;
		const char	*want;	/* substring of the error */
	} cases[] = {
		{ "foo = 1\n", "t.conf:1: unknown key \"foo\"" },
		{ "# c\nperiod_ns\n", "t.conf:2: expected" },
		{ "\n\n = 3\n", "t.conf:3: missing key" },
		{ "period_ns = 10\n", "t.conf:1: period_ns: 10 out of range" },
		{ "period_ns = abc\n", "not an integer" },
		{ "period_ns = -5\n", "not an integer" },
		{ "period_ns = 150000.5\n", "t.conf:1: period_ns" },
		{ "rho = 101\n", "out of range" },
		{ "rho = nan\n", "not a number" },
		{ "slowdown = 0\n", "out of range (0" },
		{ "policy = fastest\n", "t.conf:1: policy" },
		{ "log_level = loud\n", "log_level" },
		{ "be_cores = 3-1\n", "bad CPU list" },
		{ "be_cores = 1,1\n", "listed twice" },
		{ "be_cores =\n", "bad CPU list" },
		{ "be_cores = 0-70\n", "more than 64" },
		{ "period_thread_priority = 0\n", "out of range" },
		{ "period_thread_cpu = -2\n", "out of range" },
		{ "max_output_bytes = 10\n", "out of range" },
		{ "regulator = \n", "length" },
		{ "period_ns = 100000\nlead_ns = 100000\n",
		    "lead_ns (100000) must be below" },
		{ "overhead_events = 70000\n", "below bwmax_events" },
		{ "gpu_sms = 8\ngpu_sm_granule = 16\n",
		    "gpu_sm_granule must not exceed gpu_sms" },
		{ "gpu_sms = 4097\n", "out of range" },
	};
	struct config	c;
	char		err[CONFIG_ERR_MAX];
	size_t		i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECKM(parse(cases[i].text, &c, err) < 0, "case %zu accepted",
		    i);
		CHECKM(strstr(err, cases[i].want) != NULL,
		    "case %zu: error \"%s\" lacks \"%s\"", i, err,
		    cases[i].want);
	}
	CHECKM(config_parse(&c, "a\0b", 3, "t.conf", err, sizeof(err)) < 0 &&
	    strstr(err, "NUL") != NULL, "NUL byte");
}

static void
runtime(void)
{
	static const char	lead1[] = "lead_max_ns = 2000000\n";
	static const char	lead2[] = "lead_min_ns = 300000\n"
				    "lead_max_ns = 200000\n";
	struct config	c;
	char		err[CONFIG_ERR_MAX];

	config_defaults(&c);
	CHECKM(config_set(&c, "policy", "fair", true, err, sizeof(err)) == 0 &&
	    c.policy == POLICY_FAIR, "set policy");
	CHECKM(config_set(&c, "period_ns", "2000000", true, err,
	    sizeof(err)) < 0 && strstr(err, "not settable") != NULL,
	    "period_ns not settable");
	CHECKM(config_set(&c, "failsafe_q", "1.5", true, err, sizeof(err)) < 0,
	    "failsafe_q range");
	CHECKM(config_load(&c, "/nonexistent/bwsched.conf", true, err,
	    sizeof(err)) == 0, "missing optional file");
	CHECKM(config_load(&c, "/nonexistent/bwsched.conf", false, err,
	    sizeof(err)) < 0, "missing -c file");
	/* the daemon writes there as root: only the file may say where */
	CHECKM(config_set(&c, "metrics_dir", "/tmp", true, err,
	    sizeof(err)) < 0 && strstr(err, "not settable") != NULL,
	    "metrics_dir not settable at run time");
	CHECKM(config_set(&c, "metrics_dir", "/var/lib/node-exporter", false,
	    err, sizeof(err)) == 0 && strcmp(c.metrics_dir,
	    "/var/lib/node-exporter") == 0, "metrics_dir from the file");
	CHECKM(config_set(&c, "metrics_interval_ns", "1000", true, err,
	    sizeof(err)) < 0, "metrics_interval_ns below 0.1 s");
	CHECKM(c.metrics_interval_ns == 15000000000ull,
	    "metrics_interval_ns default");
	CHECKM(config_nkeys() == 35, "35 keys, got %u", config_nkeys());
	/* the look-ahead keys */
	config_defaults(&c);
	CHECKM(c.lookahead == CONFIG_DEFAULT_LOOKAHEAD &&
	    c.dynamic_share_warn == 0.9, "look-ahead defaults");
	CHECKM(config_set(&c, "lookahead", "17", false, err, sizeof(err)) < 0,
	    "lookahead above the plan size");
	CHECKM(config_set(&c, "lookahead", "0", false, err, sizeof(err)) < 0,
	    "lookahead 0");
	CHECKM(config_parse(&c, lead1, strlen(lead1), "t", err,
	    sizeof(err)) < 0 && strstr(err, "lead_max_ns") != NULL,
	    "lead_max_ns beyond the period: %s", err);
	config_defaults(&c);
	CHECKM(config_parse(&c, lead2, strlen(lead2), "t", err,
	    sizeof(err)) < 0 && strstr(err, "lead_max_ns") != NULL,
	    "lead range upside down: %s", err);
	config_defaults(&c);
	CHECKM(config_set(&c, "dynamic_share_warn", "0.5", true, err,
	    sizeof(err)) == 0 && c.dynamic_share_warn == 0.5,
	    "dynamic_share_warn settable");
}

/* Values compare by what they hold, not by the bytes after it. */
static void
equal(void)
{
	static const char *const keys[] = { "socket", "period_ns",
		"smooth_a", "period_thread_cpu", "be_cores", "policy" };
	struct config		c1, c2;
	struct config_value	a, b;
	size_t			i;
	char			err[CONFIG_ERR_MAX];

	config_defaults(&c1);
	config_defaults(&c2);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		memset(&a, 0xaa, sizeof(a));
		memset(&b, 0x55, sizeof(b));
		config_get(&c1, keys[i], &a);
		config_get(&c2, keys[i], &b);
		CHECKM(config_value_equal(&a, &b), "%s equal", keys[i]);
	}
	CHECKM(config_set(&c2, "smooth_a", "0.5", true, err, sizeof(err)) == 0,
	    "set smooth_a");
	config_get(&c1, "smooth_a", &a);
	config_get(&c2, "smooth_a", &b);
	CHECKM(!config_value_equal(&a, &b), "smooth_a differs");
	config_get(&c1, "period_ns", &b);
	CHECKM(!config_value_equal(&a, &b), "types differ");
}

/* A file of the source tree, NUL-terminated; NULL if unreadable. */
static char *
slurp(const char *rel)
{
	const char	*top = getenv("top_srcdir");
	char		path[4096], *buf;
	FILE		*f;
	long		n;

	snprintf(path, sizeof(path), "%s/%s", top ? top : "..", rel);
	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	if ((buf = malloc((size_t)n + 1)) != NULL) {
		buf[fread(buf, 1, (size_t)n, f)] = '\0';
	}
	fclose(f);
	return buf;
}

/* Is `key` (in backticks) in text between the markers from and to? */
static int
listed(const char *text, const char *from, const char *to, const char *key)
{
	const char	*a = strstr(text, from), *b, *p;
	char		want[64];

	if (a == NULL || (b = strstr(a, to)) == NULL)
		return -1;
	snprintf(want, sizeof(want), "`%s`", key);
	p = strstr(a, want);
	if (p == NULL || p > b) {
		/* the get paragraph lists names in one pair of backticks */
		snprintf(want, sizeof(want), "%s", key);
		for (p = a; (p = strstr(p, want)) != NULL && p < b; p++)
			if ((p[-1] == '`' || p[-1] == ' ') &&
			    (p[strlen(key)] == '`' || p[strlen(key)] == ' '))
				return 1;
		return 0;
	}
	return 1;
}

/* The line of bwsched.conf(5) that introduces key, or NULL. */
static const char *
man_entry(const char *man, const char *key, char *line, size_t len)
{
	char		want[64];
	const char	*p, *b, *e;

	snprintf(want, sizeof(want), "%s \" = ", key);
	for (p = man; (p = strstr(p, want)) != NULL; p++) {
		if (p == man || p[-1] != ' ')
			continue;
		for (b = p; b > man && b[-1] != '\n'; b--)
			;
		if (strncmp(b, ".BR ", 4) != 0)
			continue;
		e = strchr(p, '\n');
		snprintf(line, len, "%.*s", (int)(e ? e - b : (long)strlen(b)),
		    b);
		return line;
	}
	return NULL;
}

/* In set's list, a key is given with its range: "`key` (" or "`key` [". */
static int
settable(const char *text, const char *key)
{
	const char	*a = strstr(text, "Settable at run time:"), *b, *p;
	char		want[64];

	if (a == NULL || (b = strstr(a, "A number may be sent")) == NULL)
		return -1;
	snprintf(want, sizeof(want), "`%s` ", key);
	for (p = a; (p = strstr(p, want)) != NULL && p < b; p++)
		if (p[strlen(want)] == '(' || p[strlen(want)] == '[')
			return 1;
	return 0;
}

/*
 * The specs say what the code does: get's value types and the keys set
 * accepts, in doc/protocol.md and bwsched.conf(5), for every key.
 */
static void
spec(void)
{
	char			*proto = slurp("doc/protocol.md");
	char			*man = slurp("man/bwsched.conf.5");
	char			 line[256];
	struct config		 c;
	struct config_value	 v;
	unsigned int		 i;
	const char		*k;
	int			 s, f, n, rt;

	CHECKM(proto != NULL && man != NULL, "cannot read the specs");
	if (proto == NULL || man == NULL)
		return;
	for (i = 0; proto[i] != '\0'; i++)	/* lines wrap anywhere */
		if (proto[i] == '\n')
			proto[i] = ' ';
	config_defaults(&c);
	for (i = 0; i < config_nkeys(); i++) {
		k = config_key_name(i);
		config_get(&c, k, &v);
		s = listed(proto, "strings for", "floats for", k);
		f = listed(proto, "floats for", "signed ints for", k);
		n = listed(proto, "signed ints for", "uints for the", k);
		CHECKM(s == (v.type == CONFIG_T_STR) &&
		    f == (v.type == CONFIG_T_DOUBLE) &&
		    n == (v.type == CONFIG_T_INT), "protocol.md get: type of "
		    "%s (str %d float %d int %d, is %d)", k, s, f, n, v.type);
		rt = settable(proto, k);
		CHECKM(rt == config_key_runtime(i), "protocol.md set: %s is%s "
		    "settable at run time", k, config_key_runtime(i) ? "" :
		    " not");
		CHECKM(man_entry(man, k, line, sizeof(line)) != NULL,
		    "bwsched.conf.5: no entry for %s", k);
		if (man_entry(man, k, line, sizeof(line)) != NULL)
			CHECKM((strstr(line, "(run time)") != NULL) ==
			    config_key_runtime(i), "bwsched.conf.5: %s is%s "
			    "settable at run time", k,
			    config_key_runtime(i) ? "" : " not");
	}
	free(proto);
	free(man);
}

int
main(void)
{
	good();
	bad();
	runtime();
	equal();
	spec();
	if (failures == 0)
		printf("config: all passed\n");
	return failures ? 1 : 0;
}
