/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* perf_regs.h -- private: the x86-64 user registers of a perf sample.
 *
 * Shared by the sampling profiler (runtime/profile/profile.c) and the
 * tracer's perf event source (runtime/tracer/perf_source.c), which both
 * ask for PERF_SAMPLE_REGS_USER with REGS_MASK and turn what comes into
 * the struct user_regs_struct the unwinder takes.  Register numbers are
 * perf's (arch/x86/include/uapi/asm/perf_regs.h); a sample carries the
 * registers of the mask in increasing number (perf_event_open(2),
 * "sample_regs_user").
 */
#ifndef MAPTAP_RUNTIME_PERF_REGS_H
#define MAPTAP_RUNTIME_PERF_REGS_H

#include <stdint.h>
#include <string.h>
#include <sys/user.h>

enum {
	PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP,
	PR_FLAGS, PR_CS, PR_SS, PR_DS, PR_ES, PR_FS, PR_GS,
	PR_R8, PR_R9, PR_R10, PR_R11, PR_R12, PR_R13, PR_R14, PR_R15,
	PR_COUNT
};

/* The registers sampled: the general ones; flags and segment registers
 * are not needed to unwind. */
#define REGS_MASK (((1ULL << (PR_IP + 1)) - 1) | \
		   (((1ULL << 8) - 1) << PR_R8))

/* PR, the sample's registers indexed by perf number (PR_COUNT of them,
 * those outside REGS_MASK ignored), as *U (the others 0). */
static inline void mt_perf_regs_user(const uint64_t *pr,
				     struct user_regs_struct *u)
{
	memset(u, 0, sizeof(*u));
	u->rax = pr[PR_AX];
	u->rbx = pr[PR_BX];
	u->rcx = pr[PR_CX];
	u->rdx = pr[PR_DX];
	u->rsi = pr[PR_SI];
	u->rdi = pr[PR_DI];
	u->rbp = pr[PR_BP];
	u->rsp = pr[PR_SP];
	u->rip = pr[PR_IP];
	u->r8 = pr[PR_R8];
	u->r9 = pr[PR_R9];
	u->r10 = pr[PR_R10];
	u->r11 = pr[PR_R11];
	u->r12 = pr[PR_R12];
	u->r13 = pr[PR_R13];
	u->r14 = pr[PR_R14];
	u->r15 = pr[PR_R15];
}

#endif
