/*
 * inject.h - the CUPTI injection entry points, exposed for tests that
 * call the callback with fabricated CUpti_CallbackData.
 */
#ifndef BWCUDA_INJECT_H
#define BWCUDA_INJECT_H

#include <cupti.h>

/* 0: subscribed, interposer off; -1: fell back to the interposer. */
int	bwcuda_inject_init(void);
int	InitializeInjection(void);
void CUPTIAPI bwcuda_cupti_callback(void *, CUpti_CallbackDomain,
	    CUpti_CallbackId, const void *);

#endif /* BWCUDA_INJECT_H */
