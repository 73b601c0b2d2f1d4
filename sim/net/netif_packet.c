/* A netif on a real Ethernet interface through AF_PACKET (see netif_packet.h). */
#include "sim/net/netif_packet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define ETH_MIN_FRAME 60 /* without FCS */
#define RX_BUF 65536     /* GRO can hand packet sockets frames above the MTU */
#define SOCK_BUF (4 << 20)

struct netif_packet {
	netif *nif;
	int fd;
	int ifindex;
	char ifname[IFNAMSIZ];
	uint8_t if_mac[6];
	uint8_t *rx;
	netif_packet_counters ctr;
};

static void fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Classic BPF: drop frames whose source is our MAC (our own, looped back), pass frames
 * to our MAC and to group addresses (I/G bit), drop the rest before they are copied. */
static int attach_filter(int fd, const uint8_t mac[6])
{
	uint32_t m03 = be32_at(mac), m45 = (uint32_t)mac[4] << 8 | mac[5];
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 6),          /* 0: source MAC bytes 0..3 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, m03, 0, 2), /* 1: → 2 | 4 */
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 10),         /* 2: source MAC bytes 4..5 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, m45, 7, 0), /* 3: ours → 11 (drop) | 4 */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),          /* 4: destination bytes 0..3 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, m03, 0, 2), /* 5: → 6 | 8 */
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),          /* 6: destination bytes 4..5 */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, m45, 2, 0), /* 7: ours → 10 (pass) | 8 */
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),          /* 8: first destination byte */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 1, 0, 1),  /* 9: group → 10 | 11 */
		BPF_STMT(BPF_RET | BPF_K, RX_BUF),              /* 10: pass */
		BPF_STMT(BPF_RET | BPF_K, 0),                   /* 11: drop */
	};
	struct sock_fprog prog = { .len = (unsigned short)(sizeof(code) / sizeof(code[0])), .filter = code };
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static void link_output(void *ctx, netif *nif, const uint8_t *frame, size_t len, unsigned flags)
{
	(void)nif;
	(void)flags;
	netif_packet *p = ctx;
	uint8_t pad[ETH_MIN_FRAME];
	if (len < ETH_MIN_FRAME) {
		memset(pad, 0, sizeof(pad));
		memcpy(pad, frame, len);
		frame = pad;
		len = ETH_MIN_FRAME;
	}
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_ifindex = p->ifindex,
		.sll_halen = 6,
	};
	memcpy(to.sll_addr, frame, 6);
	ssize_t n = sendto(p->fd, frame, len, MSG_DONTWAIT, (const struct sockaddr *)&to, sizeof(to));
	if (n != (ssize_t)len) {
		p->ctr.tx_dropped++;
		return;
	}
	p->ctr.tx_frames++;
	p->ctr.tx_bytes += len;
}

netif_packet *netif_packet_open(netif *nif, const char *ifname, char *err, size_t errlen)
{
	if (!nif || !ifname || strlen(ifname) >= IFNAMSIZ) {
		fail(err, errlen, "netif_packet: bad interface name");
		return NULL;
	}
	netif_packet *p = calloc(1, sizeof(*p));
	if (!p || !(p->rx = malloc(RX_BUF))) {
		free(p);
		fail(err, errlen, "netif_packet: out of memory");
		return NULL;
	}
	p->nif = nif;
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	p->fd = -1;
	p->ifindex = (int)if_nametoindex(ifname);
	if (!p->ifindex) {
		fail(err, errlen, "no network interface '%s': %s", ifname, strerror(errno));
		goto fail;
	}
	/* protocol 0: nothing is queued before the filter is in place and bind() names the
	 * interface and ETH_P_ALL */
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		int e = errno;
		fail(err, errlen, "socket(AF_PACKET): %s%s", strerror(e),
		     e == EPERM ? " (needs root or CAP_NET_RAW)" : "");
		goto fail;
	}
	if (attach_filter(p->fd, nif->mac) < 0) {
		fail(err, errlen, "SO_ATTACH_FILTER on %s: %s", ifname, strerror(errno));
		goto fail;
	}
	int sz = SOCK_BUF;
	setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = p->ifindex };
	if (bind(p->fd, (const struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fail(err, errlen, "bind(AF_PACKET, %s): %s", ifname, strerror(errno));
		goto fail;
	}
	/* let frames for our MAC past the NIC's filter (QEMU's virtio-net has one) */
	struct packet_mreq mr = { .mr_ifindex = p->ifindex, .mr_type = PACKET_MR_UNICAST, .mr_alen = 6 };
	memcpy(mr.mr_address, nif->mac, 6);
	if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		struct packet_mreq pr = { .mr_ifindex = p->ifindex, .mr_type = PACKET_MR_PROMISC };
		if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &pr, sizeof(pr)) < 0) {
			fail(err, errlen, "PACKET_ADD_MEMBERSHIP on %s (unicast, then promiscuous): %s", ifname,
			     strerror(errno));
			goto fail;
		}
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(p->fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(p->if_mac, ifr.ifr_hwaddr.sa_data, 6);
	netif_set_link(nif, link_output, p);
	return p;
fail:
	if (p->fd >= 0)
		close(p->fd);
	free(p->rx);
	free(p);
	return NULL;
}

void netif_packet_close(netif_packet *p)
{
	if (!p)
		return;
	if (p->nif->link_ctx == p)
		netif_set_link(p->nif, NULL, NULL);
	close(p->fd); /* drops the unicast/promiscuous membership */
	free(p->rx);
	free(p);
}

int netif_packet_fd(const netif_packet *p)
{
	return p->fd;
}

int netif_packet_process(netif_packet *p)
{
	int delivered = 0;
	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(p->fd, p->rx, RX_BUF, MSG_TRUNC, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return delivered;
			return -errno;
		}
		/* the kernel's own transmissions pass packet sockets too; truncated frames are
		 * useless to a stack */
		if (from.sll_pkttype == PACKET_OUTGOING || n > RX_BUF || n < 14) {
			p->ctr.rx_skipped++;
			continue;
		}
		p->ctr.rx_frames++;
		p->ctr.rx_bytes += (uint64_t)n;
		netif_input(p->nif, p->rx, (size_t)n);
		delivered++;
	}
}

const netif_packet_counters *netif_packet_counters_get(const netif_packet *p)
{
	return &p->ctr;
}
