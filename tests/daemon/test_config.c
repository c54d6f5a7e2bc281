/*
 * test_config.c - bwsched.conf parsing: good files, every kind of bad
 * line with its line number, get/set at run time.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "conf.h"

static int	failures;

#define CHECK(c, ...) do { if (!(c)) { failures++;			\
	fprintf(stderr, "FAIL line %d: ", __LINE__);			\
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

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

	CHECK(parse(text, &c, err) == 0, "good file: %s", err);
	CHECK(strcmp(c.socket, "/tmp/x.sock") == 0, "socket");
	CHECK(strcmp(c.group, "wheel") == 0, "group");
	CHECK(strcmp(c.admin_group, "adm") == 0, "admin_group");
	CHECK(c.event_type == 4 && c.event_config == 0x17, "event type/config");
	CHECK(strcmp(c.device, "/dev/bwreg") == 0, "device default");
	CHECK(c.period_ns == 2000000 && c.lead_ns == 100000, "period/lead");
	CHECK(c.policy == POLICY_SMOOTH, "policy");
	CHECK(c.ncores == 4 && c.cores[0] == 0 && c.cores[1] == 2 &&
	    c.cores[3] == 4, "be_cores");
	CHECK(c.rho == 3 && c.failsafe_q == 0.05 && c.smooth_a == 0.5,
	    "doubles");
	CHECK(c.max_output_bytes == 131072 && c.max_tasks == 4, "limits");
	CHECK(c.log_level == LOG_L_DEBUG, "log_level");
	CHECK(c.period_thread_priority == 80 && c.period_thread_cpu == 1,
	    "period thread");
	CHECK(config_get(&c, "be_cores", &v) == 0 &&
	    strcmp(v.s, "0,2-4") == 0, "be_cores text %s", v.s);
	CHECK(config_get(&c, "period_thread_cpu", &v) == 0 &&
	    v.type == CONFIG_T_INT && v.i == 1, "get int");
	CHECK(config_get(&c, "nosuch", &v) < 0, "get unknown");
	CHECK(parse("period_thread_cpu = none\n", &c, err) == 0 &&
	    c.period_thread_cpu == -1, "cpu none");
	CHECK(parse("", &c, err) == 0, "empty file");
	CHECK(parse("gpu_sms = 68\ngpu_sm_granule = 2\n", &c, err) == 0 &&
	    c.gpu_sms == 68 && c.gpu_sm_granule == 2, "gpu keys");
	CHECK(parse("gpu_sm_granule = 8\n", &c, err) == 0, "granule alone");
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
		CHECK(parse(cases[i].text, &c, err) < 0, "case %zu accepted",
		    i);
		CHECK(strstr(err, cases[i].want) != NULL,
		    "case %zu: error \"%s\" lacks \"%s\"", i, err,
		    cases[i].want);
	}
	CHECK(config_parse(&c, "a\0b", 3, "t.conf", err, sizeof(err)) < 0 &&
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
	CHECK(config_set(&c, "policy", "fair", true, err, sizeof(err)) == 0 &&
	    c.policy == POLICY_FAIR, "set policy");
	CHECK(config_set(&c, "period_ns", "2000000", true, err,
	    sizeof(err)) < 0 && strstr(err, "not settable") != NULL,
	    "period_ns not settable");
	CHECK(config_set(&c, "failsafe_q", "1.5", true, err, sizeof(err)) < 0,
	    "failsafe_q range");
	CHECK(config_load(&c, "/nonexistent/bwsched.conf", true, err,
	    sizeof(err)) == 0, "missing optional file");
	CHECK(config_load(&c, "/nonexistent/bwsched.conf", false, err,
	    sizeof(err)) < 0, "missing -c file");
	/* the daemon writes there as root: only the file may say where */
	CHECK(config_set(&c, "metrics_dir", "/tmp", true, err,
	    sizeof(err)) < 0 && strstr(err, "not settable") != NULL,
	    "metrics_dir not settable at run time");
	CHECK(config_set(&c, "metrics_dir", "/var/lib/node-exporter", false,
	    err, sizeof(err)) == 0 && strcmp(c.metrics_dir,
	    "/var/lib/node-exporter") == 0, "metrics_dir from the file");
	CHECK(config_set(&c, "metrics_interval_ns", "1000", true, err,
	    sizeof(err)) < 0, "metrics_interval_ns below 0.1 s");
	CHECK(c.metrics_interval_ns == 15000000000ull,
	    "metrics_interval_ns default");
	CHECK(config_nkeys() == 35, "35 keys, got %u", config_nkeys());
	/* the look-ahead keys */
	config_defaults(&c);
	CHECK(c.lookahead == CONFIG_DEFAULT_LOOKAHEAD &&
	    c.dynamic_share_warn == 0.9, "look-ahead defaults");
	CHECK(config_set(&c, "lookahead", "17", false, err, sizeof(err)) < 0,
	    "lookahead above the plan size");
	CHECK(config_set(&c, "lookahead", "0", false, err, sizeof(err)) < 0,
	    "lookahead 0");
	CHECK(config_parse(&c, lead1, strlen(lead1), "t", err,
	    sizeof(err)) < 0 && strstr(err, "lead_max_ns") != NULL,
	    "lead_max_ns beyond the period: %s", err);
	config_defaults(&c);
	CHECK(config_parse(&c, lead2, strlen(lead2), "t", err,
	    sizeof(err)) < 0 && strstr(err, "lead_max_ns") != NULL,
	    "lead range upside down: %s", err);
	config_defaults(&c);
	CHECK(config_set(&c, "dynamic_share_warn", "0.5", true, err,
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
		CHECK(config_value_equal(&a, &b), "%s equal", keys[i]);
	}
	CHECK(config_set(&c2, "smooth_a", "0.5", true, err, sizeof(err)) == 0,
	    "set smooth_a");
	config_get(&c1, "smooth_a", &a);
	config_get(&c2, "smooth_a", &b);
	CHECK(!config_value_equal(&a, &b), "smooth_a differs");
	config_get(&c1, "period_ns", &b);
	CHECK(!config_value_equal(&a, &b), "types differ");
}

int
main(void)
{
	good();
	bad();
	runtime();
	equal();
	if (failures == 0)
		printf("config: all passed\n");
	return failures ? 1 : 0;
}
