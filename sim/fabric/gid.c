/* GID derivation. */
#include "sim/fabric/gid.h"

#include <arpa/inet.h>
#include <string.h>

void gid_from_mac(const uint8_t mac[6], uint8_t gid[GID_LEN])
{
	static const uint8_t link_local[8] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0 };
	memcpy(gid, link_local, 8);
	gid[8] = mac[0] ^ 0x02;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

void gid_from_ipv4(uint32_t ipv4, uint8_t gid[GID_LEN])
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = (uint8_t)(ipv4 >> 24);
	gid[13] = (uint8_t)(ipv4 >> 16);
	gid[14] = (uint8_t)(ipv4 >> 8);
	gid[15] = (uint8_t)ipv4;
}

bool gid_is_ipv4_mapped(const uint8_t gid[GID_LEN])
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(gid, prefix, 12) == 0;
}

uint32_t gid_ipv4(const uint8_t gid[GID_LEN])
{
	return ((uint32_t)gid[12] << 24) | ((uint32_t)gid[13] << 16) | ((uint32_t)gid[14] << 8) | gid[15];
}

bool gid_to_mac(const uint8_t gid[GID_LEN], uint8_t mac[6])
{
	if (gid[0] != 0xfe || gid[1] != 0x80 || gid[11] != 0xff || gid[12] != 0xfe)
		return false;
	for (int i = 2; i < 8; i++)
		if (gid[i])
			return false;
	mac[0] = gid[8] ^ 0x02;
	mac[1] = gid[9];
	mac[2] = gid[10];
	mac[3] = gid[13];
	mac[4] = gid[14];
	mac[5] = gid[15];
	return true;
}

void gid_format(const uint8_t gid[GID_LEN], char out[GID_STRLEN])
{
	if (!inet_ntop(AF_INET6, gid, out, GID_STRLEN))
		out[0] = '\0';
}
