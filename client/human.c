/*
 * human.c - values as a person reads them (see human.h).
 */
#include <config.h>

#include <stdio.h>

#include "human.h"

const char *
human_ns(double ns, char *buf, size_t len)
{
	char	pos[32];

	if (ns < 0)
		snprintf(buf, len, "-%s", human_ns(-ns, pos, sizeof(pos)));
	else if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f \xc2\xb5s", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

const char *
human_q(double q, char *buf, size_t len)
{
	if (q < 0)
		snprintf(buf, len, "unregulated");
	else
		snprintf(buf, len, "%.4f", q);
	return buf;
}

const char *
human_mbps(double events, double period_ns, char *buf, size_t len)
{
	if (period_ns <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f MB/s", events * HUMAN_EVENT_BYTES /
		    period_ns * 1e3);
	return buf;
}
