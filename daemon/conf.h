/*
 * conf.h - bwsched.conf(5): `key = value` lines, # comments.  Every key
 * is in one table with its type, range, default and whether `set` may
 * change it at run time.  Errors name file:line.
 */
#ifndef CONF_H
#define CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "regulator.h"

#define CONFIG_MAX_PATH		108	/* sun_path */
#define CONFIG_MAX_FILE		(64u << 10)
#define CONFIG_ERR_MAX		256
#define CONFIG_DEFAULT_LOOKAHEAD 8	/* doc/engine.md says why */

enum policy { POLICY_NOMINAL, POLICY_FAIR, POLICY_GREEDY, POLICY_SMOOTH };

/* syslog priorities */
enum log_level { LOG_L_ERR = 3, LOG_L_WARNING = 4, LOG_L_NOTICE = 5,
	LOG_L_INFO = 6, LOG_L_DEBUG = 7 };

struct config {
	char		socket[CONFIG_MAX_PATH];
	char		group[64];	/* socket group; "" = the daemon's */
	char		admin_group[64]; /* admin group; "" = root only */
	char		metrics_dir[CONFIG_MAX_PATH]; /* "" = no file */
	uint64_t	metrics_interval_ns;
	uint64_t	period_ns;
	uint64_t	lead_ns;	/* starting lead */
	uint64_t	lead_min_ns;	/* adaptive range; equal: fixed */
	uint64_t	lead_max_ns;	/* 0: half the period */
	uint64_t	lookahead;	/* periods per plan */
	double		dynamic_share_warn; /* warn below this share */
	int		policy;		/* enum policy */
	char		regulator[16];
	unsigned int	ncores;
	int		cores[REG_MAX_CORES];
	double		rho;
	uint64_t	bwmax_events;
	uint64_t	overhead_events;
	double		failsafe_q;
	uint64_t	heartbeat_timeout_ns;
	double		slowdown;
	double		smooth_a;
	uint64_t	max_clients;
	uint64_t	max_msgs_per_sec;
	uint64_t	max_output_bytes;
	uint64_t	max_tasks;
	uint64_t	max_kernels_per_task;
	int		log_level;	/* enum log_level */
	int64_t		period_thread_priority; /* SCHED_FIFO */
	int64_t		period_thread_cpu;	/* -1 = not pinned */
	int64_t		priority_ceiling; /* -1 auto, 0 off, 1..99 */
	char		device[CONFIG_MAX_PATH];	/* kmod: the regulator device */
	uint64_t	event_type;	/* kmod: perf type, 0/0 = module default */
	uint64_t	event_config;	/* kmod: perf config */
	uint64_t	gpu_sms;	/* partitioning: M; 0 = the device's */
	uint64_t	gpu_sm_granule;	/* sizes' step; 0 = the device's */
};

void	config_defaults(struct config *);

/* Parse a buffer; name is used in errors ("name:line: ..."). */
int	config_parse(struct config *, const char *buf, size_t len,
	    const char *name, char *err, size_t errlen);

/*
 * Load a file over the defaults.  A missing file is an error unless
 * optional (the default path).  Returns 0 or -1 with err set.
 */
int	config_load(struct config *, const char *path, bool optional,
	    char *err, size_t errlen);

/* Cross-key checks (lead < period, ...). */
int	config_check(const struct config *, char *err, size_t errlen);

/* Look a key up: 0 and its type (CONFIG_T_*), or -1 when unknown. */
enum config_type { CONFIG_T_UINT, CONFIG_T_INT, CONFIG_T_DOUBLE,
	CONFIG_T_STR };
struct config_value {
	enum config_type	type;
	uint64_t		u;
	int64_t			i;
	double			d;
	char			s[256];
};
int	config_get(const struct config *, const char *key,
	    struct config_value *);
/* Same type and value (only the bytes that hold the value count). */
bool	config_value_equal(const struct config_value *,
	    const struct config_value *);

/*
 * Set one key at run time from its text form.  -1 with err: unknown key,
 * not settable at run time (when runtime), or a bad value.
 */
int	config_set(struct config *, const char *key, const char *value,
	    bool runtime, char *err, size_t errlen);

/* Number of keys and the i-th name, for listings. */
unsigned int	config_nkeys(void);
const char	*config_key_name(unsigned int);
/* Settable at run time (set, bwctl set)? */
bool		 config_key_runtime(unsigned int);

const char	*config_policy_name(int);
const char	*config_log_level_name(int);

#endif /* CONF_H */
