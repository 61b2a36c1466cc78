// SPDX-License-Identifier: GPL-2.0
/* fake_tx.c - the host fake of UD sends and the netdev queue state (fake_tx.h). */
#include <string.h>
#include "fake_tx.h"

static struct fake_ud_sends sends;
static struct fake_queue queue;

struct fake_ud_sends *fake_ud_sends(void) { return &sends; }
struct fake_queue *fake_tx_queue(void) { return &queue; }

void fake_tx_reset(void)
{
	memset(&sends, 0, sizeof(sends));
	memset(&queue, 0, sizeof(queue));
}

int kapi_post_send_ud(struct kapi_qp *qp, kapi_u32 lkey, const struct kapi_ud_send *s, int n)
{
	int i;

	if (n <= 0 || n > KAPI_WR_BATCH_MAX)
		return -KAPI_EINVAL;	/* as the shim */
	sends.calls++;
	if (sends.fail_next) {
		sends.fail_next = 0;
		return -KAPI_ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (sends.n < FAKE_UD_SENDS_MAX)
			sends.wr[sends.n++] = s[i];
	return 0;
}

void kapi_netdev_stop_queue(struct kapi_netdev *nd)
{
	queue.stopped = 1;
	queue.stops++;
}

void kapi_netdev_wake_queue(struct kapi_netdev *nd)
{
	queue.stopped = 0;
	queue.wakes++;
}

int kapi_netdev_queue_stopped(struct kapi_netdev *nd) { return queue.stopped; }
