/* SPDX-License-Identifier: GPL-2.0 */
/* What profile.bpf.c tells profile.c through its ring buffer. */
#ifndef PROFILE_H
#define PROFILE_H

#define PROFILE_MAX_FRAMES	127

enum profile_kind {
	PROFILE_SAMPLE = 1,	/* a sample: the cookie of its stack */
	PROFILE_STACK,		/* a deferred user stack */
};

struct profile_rec {
	__u32 kind;
	__s32 nr;		/* frames in ips; -1 if they could not be read */
	__u64 cookie;		/* 0 for a sample whose request failed */
	__u64 ips[PROFILE_MAX_FRAMES];
};

#endif /* PROFILE_H */
