/*
 * main.c - bwsched(8): parses the options, wires the request handlers
 * (ops.c) to the connections (peer.c) and runs the service (service.h).
 */
#include <config.h>	/* PACKAGE_VERSION */

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bwproto.h"
#include "ops.h"
#include "service.h"

#define DEFAULT_CONFIG	SYSCONFDIR "/bwsched.conf"

static void
usage(FILE *f)
{
	fprintf(f, "usage: bwsched [-fnhV] [-c FILE] [-s SOCKET] "
	    "[--regulator=NAME]\n"
	    "  -c, --config FILE     configuration (default %s)\n"
	    "  -s, --socket PATH     control socket (also $%s)\n"
	    "  -f, --foreground      do not detach; log to stderr\n"
	    "  -n, --check           check the configuration and exit\n"
	    "      --regulator NAME  regulator backend (auto, sim, kmod)\n"
	    "  -V, --version         print the version\n"
	    "  -h, --help            this help\n", DEFAULT_CONFIG,
	    BWP_SOCKET_ENV);
}

static int
parse_args(struct bwsched *d, int argc, char **argv, bool *fg, bool *check)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'n' },
		{ "regulator", required_argument, NULL, 'r' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int	c;

	while ((c = getopt_long(argc, argv, "c:s:fnVh", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			d->config_path = optarg;
			d->config_optional = false;
			break;
		case 's':
			d->socket_override = optarg;
			break;
		case 'f':
			*fg = true;
			break;
		case 'n':
			*check = true;
			break;
		case 'r':
			d->regulator_name = optarg;
			break;
		case 'V':
#ifdef HAVE_SYSTEMD
			printf("bwsched %s +systemd\n", PACKAGE_VERSION);
#else
			printf("bwsched %s -systemd\n", PACKAGE_VERSION);
#endif
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Detaching changes to /: keep relative -c and -s paths meaningful. */
static const char *
absolute(const char *path)
{
	static char	buf[2][4096];
	static int	n;
	char		cwd[2048];

	if (path == NULL || path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		return path;
	snprintf(buf[n & 1], sizeof(buf[0]), "%s/%s", cwd, path);
	return buf[n++ & 1];
}

int
main(int argc, char **argv)
{
	static struct bwsched	d;
	char			err[CONFIG_ERR_MAX];
	bool			fg = false, check = false;
	int			rc = 1;

	d.config_path = DEFAULT_CONFIG;
	d.config_optional = true;
	d.listen_fd = -1;
	d.sock_lock_fd = -1;
	d.tick_fd = -1;
	d.socket_override = getenv(BWP_SOCKET_ENV);
	if (d.socket_override != NULL && d.socket_override[0] == '\0')
		d.socket_override = NULL;	/* unset, as bwctl reads it */
	d.requests.dispatch = ops_dispatch;
	d.requests.reject_rate = ops_reject_rate;
	if (parse_args(&d, argc, argv, &fg, &check) < 0)
		return 2;
	d.config_path = absolute(d.config_path);
	d.socket_override = absolute(d.socket_override);
	if (service_load_config(&d, &d.cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "bwsched: %s\n", err);
		return 1;
	}
	if (check) {
		if (access(d.config_path, F_OK) < 0)
			printf("%s does not exist: the built-in defaults are "
			    "used, and they are OK\n", d.config_path);
		else
			printf("%s: configuration OK\n", d.config_path);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	d.start_ns = bwsched_now();
	if (service_start(&d, fg) == 0) {
		service_run(&d);
		rc = 0;
	}
	service_stop(&d);
	return rc;
}
