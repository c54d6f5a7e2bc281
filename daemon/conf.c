/*
 * conf.c - bwsched.conf parser (see conf.h and bwsched.conf(5)).
 */
#include <config.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "conf.h"

enum kind { K_U64, K_I64, K_DBL, K_STR, K_POLICY, K_LOGLEVEL, K_CORES,
	K_CPU };

struct key {
	const char	*name;
	enum kind	kind;
	size_t		off;
	double		min, max;	/* numbers; strings: lengths */
	bool		min_open;
	bool		runtime;	/* settable with `set` */
};

#define F(f)	offsetof(struct config, f)

static const struct key keys[] = {
	{ "socket", K_STR, F(socket), 1, CONFIG_MAX_PATH - 1, 0, 0 },
	{ "group", K_STR, F(group), 0, 63, 0, 0 },
	{ "admin_group", K_STR, F(admin_group), 0, 63, 0, 0 },
	{ "period_ns", K_U64, F(period_ns), 100000, 1e9, 0, 0 },
	{ "lead_ns", K_U64, F(lead_ns), 0, 1e8, 0, 0 },
	{ "lead_min_ns", K_U64, F(lead_min_ns), 0, 1e8, 0, 0 },
	{ "lead_max_ns", K_U64, F(lead_max_ns), 0, 1e8, 0, 0 },
	{ "lookahead", K_U64, F(lookahead), 1, REG_PLAN_MAX, 0, 0 },
	{ "dynamic_share_warn", K_DBL, F(dynamic_share_warn), 0, 1, 0, 1 },
	{ "policy", K_POLICY, F(policy), 0, 0, 0, 1 },
	{ "regulator", K_STR, F(regulator), 1, 15, 0, 0 },
	{ "be_cores", K_CORES, 0, 0, 0, 0, 0 },
	{ "rho", K_DBL, F(rho), 0, 100, 0, 1 },
	{ "bwmax_events", K_U64, F(bwmax_events), 1, 1e15, 0, 0 },
	{ "overhead_events", K_U64, F(overhead_events), 0, 1e15, 0, 1 },
	{ "failsafe_q", K_DBL, F(failsafe_q), 0, 1, 0, 1 },
	{ "heartbeat_timeout_ns", K_U64, F(heartbeat_timeout_ns), 1e6, 6e10,
	    0, 0 },
	{ "slowdown", K_DBL, F(slowdown), 0, 10, 1, 1 },
	{ "smooth_a", K_DBL, F(smooth_a), 0, 1, 1, 1 },
	{ "max_clients", K_U64, F(max_clients), 1, 65536, 0, 0 },
	{ "max_msgs_per_sec", K_U64, F(max_msgs_per_sec), 1, 1e7, 0, 0 },
	{ "max_output_bytes", K_U64, F(max_output_bytes), 65536, 1u << 30,
	    0, 0 },
	{ "max_tasks", K_U64, F(max_tasks), 1, 4096, 0, 0 },
	{ "max_kernels_per_task", K_U64, F(max_kernels_per_task), 1, 65536,
	    0, 0 },
	{ "log_level", K_LOGLEVEL, F(log_level), 0, 0, 0, 1 },
	{ "period_thread_priority", K_I64, F(period_thread_priority), 1, 99,
	    0, 0 },
	{ "period_thread_cpu", K_CPU, F(period_thread_cpu), -1, 4095, 0, 0 },
	{ "priority_ceiling", K_I64, F(priority_ceiling), -1, 99, 0, 1 },
	{ "device", K_STR, F(device), 1, CONFIG_MAX_PATH - 1, 0, 0 },
	{ "event_type", K_U64, F(event_type), 0, 4294967295.0, 0, 0 },
	{ "event_config", K_U64, F(event_config), 0, 1.8e19, 0, 0 },
	{ "metrics_dir", K_STR, F(metrics_dir), 0, CONFIG_MAX_PATH - 1, 0, 0 },
	{ "metrics_interval_ns", K_U64, F(metrics_interval_ns), 1e8, 3.6e12,
	    0, 1 },
	{ "gpu_sms", K_U64, F(gpu_sms), 0, 4096, 0, 0 },
	{ "gpu_sm_granule", K_U64, F(gpu_sm_granule), 0, 4096, 0, 0 },
};

#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

static const char *const policy_names[] = { "nominal", "fair", "greedy",
	"smooth" };
static const char *const level_names[] = { [LOG_L_ERR] = "err",
	[LOG_L_WARNING] = "warning", [LOG_L_NOTICE] = "notice",
	[LOG_L_INFO] = "info", [LOG_L_DEBUG] = "debug" };

void
config_defaults(struct config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket, sizeof(c->socket), "%s",
	    "/run/bwsched/bwsched.sock");
	snprintf(c->group, sizeof(c->group), "bwsched");
	c->period_ns = 1000000;
	c->lead_ns = 100000;
	c->lead_min_ns = 20000;
	c->lead_max_ns = 0;		/* half the period */
	c->lookahead = CONFIG_DEFAULT_LOOKAHEAD;
	c->dynamic_share_warn = 0.9;
	c->policy = POLICY_NOMINAL;
	/* auto: kmod where the bwreg module is loaded, else the sim */
	snprintf(c->regulator, sizeof(c->regulator), "auto");
	snprintf(c->device, sizeof(c->device), "/dev/bwreg");
	c->priority_ceiling = -1;
	c->ncores = 3;
	c->cores[0] = 1, c->cores[1] = 2, c->cores[2] = 3;
	c->rho = 1;
	c->bwmax_events = 60000;
	c->overhead_events = 470;
	c->failsafe_q = 0.1;
	c->heartbeat_timeout_ns = 100000000;
	c->slowdown = 0.10;
	c->smooth_a = 0.3;
	c->max_clients = 64;
	c->max_msgs_per_sec = 5000;
	c->max_output_bytes = 1u << 20;
	c->max_tasks = 32;
	c->max_kernels_per_task = 64;
	c->log_level = LOG_L_INFO;
	c->metrics_interval_ns = 15000000000ull;
	c->period_thread_priority = 90;
	c->period_thread_cpu = -1;
}

const char *
config_policy_name(int p)
{
	return p >= 0 && p <= POLICY_SMOOTH ? policy_names[p] : "?";
}

const char *
config_log_level_name(int l)
{
	return l >= LOG_L_ERR && l <= LOG_L_DEBUG ? level_names[l] : "?";
}

static const struct key *
find_key(const char *name)
{
	size_t	i;

	for (i = 0; i < NKEYS; i++)
		if (keys[i].name[0] == name[0] &&
		    strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

unsigned int
config_nkeys(void)
{
	return NKEYS;
}

const char *
config_key_name(unsigned int i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

bool
config_key_runtime(unsigned int i)
{
	return i < NKEYS && keys[i].runtime;
}

static int
parse_number(const char *v, double *out)
{
	char	*end;

	errno = 0;
	*out = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !isfinite(*out))
		return -1;
	return 0;
}

static int
parse_u64(const char *v, uint64_t *out)
{
	char			*end;
	unsigned long long	u;

	if (!isdigit((unsigned char)v[0]))
		return -1;
	errno = 0;
	u = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0') {
		/* also accept 1e6 style, exact integers only */
		double	d;

		if (parse_number(v, &d) < 0 || d < 0 || d > 1.8e19 ||
		    d != floor(d))
			return -1;
		u = (unsigned long long)d;
	}
	*out = u;
	return 0;
}

static int
parse_name(const char *v, const char *const *names, int lo, int hi)
{
	int	i;

	for (i = lo; i <= hi; i++)
		if (names[i] != NULL && strcmp(v, names[i]) == 0)
			return i;
	return -1;
}

/* "1-3,5" -> cores; no duplicates */
static int
parse_cores(struct config *c, const char *v, char *err, size_t errlen)
{
	uint64_t	seen[4096 / 64] = { 0 };
	const char	*p = v;
	unsigned int	n = 0;
	long		a, b;
	char		*end;

	while (*p != '\0') {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 4095)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 4095)
				goto bad;
		}
		for (; a <= b; a++) {
			if (seen[a / 64] & (1ull << (a % 64))) {
				snprintf(err, errlen, "CPU %ld listed twice",
				    a);
				return -1;
			}
			seen[a / 64] |= 1ull << (a % 64);
			if (n == REG_MAX_CORES) {
				snprintf(err, errlen, "more than %d cores",
				    REG_MAX_CORES);
				return -1;
			}
			c->cores[n++] = (int)a;
		}
		if (*end == ',' && end[1] != '\0')
			end++;
		else if (*end != '\0')
			goto bad;
		p = end;
	}
	if (n == 0)
		goto bad;
	c->ncores = n;
	return 0;
bad:
	snprintf(err, errlen, "bad CPU list \"%s\" (e.g. 1-3 or 1,2,5)", v);
	return -1;
}

static int
set_number(struct config *c, const struct key *k, const char *v, char *err,
    size_t errlen)
{
	char		*base = (char *)c + k->off;
	uint64_t	u = 0;
	double		d;

	if (k->kind == K_U64) {
		if (parse_u64(v, &u) < 0)
			goto bad;
		d = (double)u;
	} else if (parse_number(v, &d) < 0 ||
	    (k->kind != K_DBL && d != floor(d)))
		goto bad;
	if (d < k->min || d > k->max || (k->min_open && d == k->min)) {
		snprintf(err, errlen, "%s: %s out of range %c%g, %g]", k->name,
		    v, k->min_open ? '(' : '[', k->min, k->max);
		return -1;
	}
	if (k->kind == K_U64)
		memcpy(base, &u, sizeof(u));
	else if (k->kind == K_DBL)
		memcpy(base, &d, sizeof(d));
	else {
		int64_t	i = (int64_t)d;

		memcpy(base, &i, sizeof(i));
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: \"%s\" is not a%s number", k->name, v,
	    k->kind == K_DBL ? "" : "n integer");
	return -1;
}

static int
set_key(struct config *c, const struct key *k, const char *v, char *err,
    size_t errlen)
{
	char	*base = (char *)c + k->off;
	int	i;

	switch (k->kind) {
	case K_STR:
		if (strlen(v) < k->min || strlen(v) > k->max) {
			snprintf(err, errlen, "%s: length must be %g to %g",
			    k->name, k->min, k->max);
			return -1;
		}
		memcpy(base, v, strlen(v) + 1);
		return 0;
	case K_POLICY:
		if ((i = parse_name(v, policy_names, 0, POLICY_SMOOTH)) < 0) {
			snprintf(err, errlen, "policy: \"%s\" is not one of "
			    "nominal, fair, greedy, smooth", v);
			return -1;
		}
		c->policy = i;
		return 0;
	case K_LOGLEVEL:
		if ((i = parse_name(v, level_names, LOG_L_ERR,
		    LOG_L_DEBUG)) < 0) {
			snprintf(err, errlen, "log_level: \"%s\" is not one of "
			    "err, warning, notice, info, debug", v);
			return -1;
		}
		c->log_level = i;
		return 0;
	case K_CORES:
		return parse_cores(c, v, err, errlen);
	case K_CPU:
		if (strcmp(v, "none") == 0) {
			c->period_thread_cpu = -1;
			return 0;
		}
		/* FALLTHROUGH */
	default:
		return set_number(c, k, v, err, errlen);
	}
}

int
config_set(struct config *c, const char *key, const char *value,
    bool runtime, char *err, size_t errlen)
{
	const struct key	*k = find_key(key);

	if (k == NULL) {
		snprintf(err, errlen, "unknown key \"%s\"", key);
		return -1;
	}
	if (runtime && !k->runtime) {
		snprintf(err, errlen, "%s: not settable at run time", key);
		return -1;
	}
	return set_key(c, k, value, err, errlen);
}

static char *
trim(char *s)
{
	char	*e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int
parse_line(struct config *c, char *line, char *err, size_t errlen)
{
	char	*eq, *key, *val, *hash;

	hash = strchr(line, '#');
	if (hash != NULL)
		*hash = '\0';
	line = trim(line);
	if (*line == '\0')
		return 0;
	eq = strchr(line, '=');
	if (eq == NULL) {
		snprintf(err, errlen, "expected \"key = value\"");
		return -1;
	}
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	if (*key == '\0') {
		snprintf(err, errlen, "missing key before \"=\"");
		return -1;
	}
	return config_set(c, key, val, false, err, errlen);
}

int
config_parse(struct config *c, const char *buf, size_t len,
    const char *name, char *err, size_t errlen)
{
	char		line[1024], why[CONFIG_ERR_MAX];
	size_t		pos = 0, n;
	unsigned int	lineno = 0;
	const char	*nl;

	while (pos < len) {
		lineno++;
		nl = memchr(buf + pos, '\n', len - pos);
		n = (nl != NULL ? (size_t)(nl - buf) : len) - pos;
		if (n >= sizeof(line) || memchr(buf + pos, '\0', n) != NULL) {
			snprintf(err, errlen, "%s:%u: line too long or "
			    "holds a NUL byte", name, lineno);
			return -1;
		}
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		pos += n + 1;
		if (parse_line(c, line, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%s:%u: %s", name, lineno, why);
			return -1;
		}
	}
	if (config_check(c, why, sizeof(why)) < 0) {
		snprintf(err, errlen, "%s: %s", name, why);
		return -1;
	}
	return 0;
}

int
config_check(const struct config *c, char *err, size_t errlen)
{
	if (c->lead_ns >= c->period_ns) {
		snprintf(err, errlen, "lead_ns (%llu) must be below period_ns "
		    "(%llu)", (unsigned long long)c->lead_ns,
		    (unsigned long long)c->period_ns);
		return -1;
	}
	if (c->lead_max_ns >= c->period_ns ||
	    (c->lead_max_ns != 0 && c->lead_min_ns > c->lead_max_ns)) {
		snprintf(err, errlen, "lead_max_ns (%llu) must be below "
		    "period_ns (%llu) and not below lead_min_ns (%llu)",
		    (unsigned long long)c->lead_max_ns,
		    (unsigned long long)c->period_ns,
		    (unsigned long long)c->lead_min_ns);
		return -1;
	}
	if (c->lead_min_ns >= c->period_ns) {
		snprintf(err, errlen, "lead_min_ns (%llu) must be below "
		    "period_ns (%llu)", (unsigned long long)c->lead_min_ns,
		    (unsigned long long)c->period_ns);
		return -1;
	}
	if (c->overhead_events >= c->bwmax_events) {
		snprintf(err, errlen, "overhead_events must be below "
		    "bwmax_events");
		return -1;
	}
	if (c->gpu_sms > 0 && c->gpu_sm_granule > c->gpu_sms) {
		snprintf(err, errlen, "gpu_sm_granule must not exceed gpu_sms");
		return -1;
	}
	return 0;
}

int
config_load(struct config *c, const char *path, bool optional, char *err,
    size_t errlen)
{
	char	*buf;
	size_t	len;
	int	r;

	r = fileio_read(path, CONFIG_MAX_FILE, &buf, &len);
	if (r == -ENOENT && optional)
		return config_check(c, err, errlen);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, r == -EFBIG ?
		    "file too large" : strerror(-r));
		return -1;
	}
	r = config_parse(c, buf, len, path, err, errlen);
	free(buf);
	return r;
}

static void
cores_text(const struct config *c, char *out, size_t len)
{
	size_t		o = 0;
	unsigned int	i, j;

	out[0] = '\0';
	for (i = 0; i < c->ncores; i = j) {
		for (j = i + 1; j < c->ncores &&
		    c->cores[j] == c->cores[j - 1] + 1; j++)
			;
		if (o >= len)
			break;
		if (j - 1 > i)
			o += snprintf(out + o, len - o, "%s%d-%d", i ? "," : "",
			    c->cores[i], c->cores[j - 1]);
		else
			o += snprintf(out + o, len - o, "%s%d", i ? "," : "",
			    c->cores[i]);
	}
}

/* A string value, cut to fit like snprintf("%s") (get is a hot op). */
static void
value_text(struct config_value *v, const char *s)
{
	size_t	n = strnlen(s, sizeof(v->s) - 1);

	memcpy(v->s, s, n);
	v->s[n] = '\0';
}

bool
config_value_equal(const struct config_value *a,
    const struct config_value *b)
{
	if (a->type != b->type)
		return false;
	switch (a->type) {
	case CONFIG_T_UINT:
		return a->u == b->u;
	case CONFIG_T_INT:
		return a->i == b->i;
	case CONFIG_T_DOUBLE:
		return a->d == b->d;
	default:
		return strcmp(a->s, b->s) == 0;
	}
}

int
config_get(const struct config *c, const char *key, struct config_value *v)
{
	const struct key	*k = find_key(key);
	const char		*base;

	if (k == NULL)
		return -1;
	base = (const char *)c + k->off;
	v->u = 0;
	v->i = 0;
	v->d = 0;
	v->s[0] = '\0';
	v->type = CONFIG_T_STR;
	switch (k->kind) {
	case K_STR:
		value_text(v, base);
		break;
	case K_POLICY:
		value_text(v, config_policy_name(c->policy));
		break;
	case K_LOGLEVEL:
		value_text(v, config_log_level_name(c->log_level));
		break;
	case K_CORES:
		cores_text(c, v->s, sizeof(v->s));
		break;
	case K_U64:
		v->type = CONFIG_T_UINT;
		memcpy(&v->u, base, sizeof(v->u));
		break;
	case K_DBL:
		v->type = CONFIG_T_DOUBLE;
		memcpy(&v->d, base, sizeof(v->d));
		break;
	case K_I64:
	case K_CPU:
		v->type = CONFIG_T_INT;
		memcpy(&v->i, base, sizeof(v->i));
		break;
	}
	return 0;
}
