// SPDX-License-Identifier: GPL-2.0
/*
 * How many of the user contexts that a timer interrupt stopped have
 * RFLAGS.RF set?  A profiling timer's signal is delivered on the way out
 * of the interrupt, and its context holds the flags that the interrupt
 * saved: on x86 hardware RF is 0 there, as it was when the code ran.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <ucontext.h>

#define RFLAGS_RF	(1UL << 16)
#define SIGNALS		300

static volatile sig_atomic_t with_rf, total;

static void handler(int sig, siginfo_t *si, void *context)
{
	ucontext_t *uc = context;

	total++;
	if (uc->uc_mcontext.gregs[REG_EFL] & RFLAGS_RF)
		with_rf++;
}

int main(void)
{
	struct sigaction sa = {
		.sa_sigaction = handler,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

	if (sigaction(SIGPROF, &sa, NULL) ||
	    setitimer(ITIMER_PROF, &it, NULL)) {
		perror("rflags");
		return 1;
	}
	while (total < SIGNALS)
		__asm__ volatile("");
	printf("timer-interrupted contexts: %d, with RF set: %d\n",
	       (int)total, (int)with_rf);
	return 0;
}
