/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fake_tx.h - the host's fake of the send side of the boundary: kapi_post_send_ud records
 * every UD send (with a refusal the test can inject), and the netdev queue's stop/wake
 * state (one netdev per case: the state is global, fake_tx_reset clears it).
 */
#ifndef FAKE_TX_H
#define FAKE_TX_H

#include "kapi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FAKE_UD_SENDS_MAX 256

struct fake_ud_sends {
	struct kapi_ud_send wr[FAKE_UD_SENDS_MAX];	/* the accepted ones, in order */
	int n;			/* accepted */
	int calls;		/* kapi_post_send_ud calls */
	int fail_next;		/* the next post is refused (-ENOMEM, as a full SQ) */
};
struct fake_ud_sends *fake_ud_sends(void) KAPI_NOEXCEPT;

struct fake_queue {
	int stopped;
	int stops, wakes;	/* calls */
};
struct fake_queue *fake_tx_queue(void) KAPI_NOEXCEPT;
void fake_tx_reset(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
