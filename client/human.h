/*
 * human.h - values as a person reads them, for bwctl's tables and top:
 * durations in ns/µs/ms/s, Q with "unregulated" for the daemon's -1,
 * and an events-per-period budget as MB/s.  --json keeps the raw values.
 */
#ifndef HUMAN_H
#define HUMAN_H

#include <stddef.h>

/* Bytes one regulated event stands for: a last-level cache line. */
#define HUMAN_EVENT_BYTES	64

/* "850 ns", "12.5 µs", "3.163 ms", "12.40 s"; returns buf. */
const char	*human_ns(double ns, char *buf, size_t len);
/* "0.1274", or "unregulated" for a negative Q; returns buf. */
const char	*human_q(double q, char *buf, size_t len);
/* events per period_ns as "1234.5 MB/s" ("-" without a period). */
const char	*human_mbps(double events, double period_ns, char *buf,
		    size_t len);

#endif /* HUMAN_H */
